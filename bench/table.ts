// Prints the benchmark targets of bench/results/latest.json as the Markdown table the README carries.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface Target {
  claim: string;
  figure: string;
  met: boolean;
}

interface Results {
  date: string;
  machine: { cpu?: string; cores?: number; node?: string };
  suites: Record<string, { targets?: Target[]; date?: string }>;
}

/** `path` defaults to the results file of the repository it runs in (npm scripts run from its root). */
export function benchTable(path = 'bench/results/latest.json'): string {
  const results = JSON.parse(readFileSync(path, 'utf8')) as Results;
  const lines = ['| suite | target | measured | met |', '| --- | --- | --- | --- |'];
  for (const [name, suite] of Object.entries(results.suites)) {
    for (const target of suite.targets ?? []) {
      lines.push(`| ${name} | ${escape(target.claim)} | ${escape(target.figure)} | ${target.met ? 'yes' : '**no**'} |`);
    }
  }
  const { cpu, cores, node } = results.machine;
  const dates = Object.values(results.suites).map((suite) => (suite.date ?? results.date).slice(0, 10)).sort();
  const when = dates[0] === dates.at(-1) ? dates[0] : `${dates[0]} to ${dates.at(-1)}`;
  lines.push('', `Measured ${when ?? results.date.slice(0, 10)} on ${cores ?? '?'} cores (${cpu ?? 'unknown CPU'}), Node ${node ?? '?'}.`);
  return lines.join('\n');
}

function escape(text: string): string {
  return text.replaceAll('|', '\\|');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(`${benchTable()}\n`);
}
