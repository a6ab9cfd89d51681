// Prints the benchmark targets of bench/results/latest.json as the Markdown table the README carries: each suite
// with the date and commit it was measured on; a suite without provenance, or measured on code that is not in this
// checkout's history, cannot be shown.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Machine } from './lib/machine.js';
import { unshowable, type Provenance } from './lib/provenance.js';

interface Target {
  claim: string;
  figure: string;
  met: boolean;
}

type Stored = Partial<Provenance> & { targets?: Target[] };

/** `path` defaults to the results file of the repository it runs in (npm scripts run from its root); its commits
 * are looked up in `repo`, by default the repository that holds it. */
export function benchTable(path = 'bench/results/latest.json', repo = resolve(dirname(path), '../..')): string {
  const suites = (JSON.parse(readFileSync(path, 'utf8')) as { suites?: Record<string, Stored> }).suites ?? {};
  const lines = ['| suite | target | measured | met | date | commit |', '| --- | --- | --- | --- | --- | --- |'];
  const hidden: string[] = [];
  const machines = new Set<string>();
  for (const [name, suite] of Object.entries(suites)) {
    const why = unshowable(repo, suite);
    if (why) {
      hidden.push(`${name} (${why})`);
      continue;
    }
    machines.add(describe(suite.machine!));
    for (const target of suite.targets ?? []) {
      const cells = [name, escapeCell(target.claim), escapeCell(target.figure), target.met ? 'yes' : '**no**', suite.date!.slice(0, 10), suite.commit!.slice(0, 10)];
      lines.push(`| ${cells.join(' | ')} |`);
    }
  }
  lines.push('', `Measured on ${[...machines].join('; ') || 'no machine'}.`);
  if (hidden.length) lines.push(`Not shown: ${hidden.join(', ')}.`);
  return lines.join('\n');
}

function describe(machine: Machine): string {
  return `${machine.cores} cores (${machine.cpu}), ${machine.platform} ${machine.kernel}, Node ${machine.node}`;
}

function escapeCell(text: string): string {
  return text.replaceAll('|', '\\|');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(`${benchTable()}\n`);
}
