// The benchmark runner: runs the suites in bench/suites (all, or those named), prints them, and with --json
// writes bench/results/latest.json.
//   npm run bench                   every suite
//   npm run bench -- ring spill     the named suites (a name may also be a suite's alias, e.g. capture)
//   npm run bench -- --json         also write bench/results/latest.json
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { stableJson } from './lib/json.js';
import { machine } from './lib/machine.js';
import { renderSuite } from './lib/print.js';
import type { SuiteResult } from './lib/types.js';

interface SuiteModule {
  run(): Promise<SuiteResult>;
  aliases?: string[];
}

const here = path.dirname(fileURLToPath(import.meta.url));
const suitesDir = path.join(here, 'suites');
// The compiled runner lives in dist/bench; the results file belongs to the source tree.
const resultsFile = path.resolve(here, '../../bench/results/latest.json');

async function loadSuites(): Promise<Map<string, SuiteModule>> {
  const suites = new Map<string, SuiteModule>();
  const files = fs.readdirSync(suitesDir).filter((f) => f.endsWith('.js')).sort();
  for (const file of files) {
    const module = (await import(path.join(suitesDir, file))) as SuiteModule;
    if (typeof module.run === 'function') suites.set(path.basename(file, '.js'), module);
  }
  return suites;
}

function select(suites: Map<string, SuiteModule>, names: string[]): string[] {
  if (names.length === 0) return [...suites.keys()];
  const chosen: string[] = [];
  for (const name of names) {
    const matches = [...suites].filter(([key, s]) => key === name || s.aliases?.includes(name)).map(([key]) => key);
    if (matches.length === 0) {
      const known = [...suites].map(([key, s]) => (s.aliases?.length ? `${key} (${s.aliases.join(', ')})` : key));
      throw new Error(`unknown suite ${JSON.stringify(name)}; suites: ${known.join(', ')}`);
    }
    for (const key of matches) if (!chosen.includes(key)) chosen.push(key);
  }
  // Always in the order of the directory, whatever order they were named in.
  return [...suites.keys()].filter((key) => chosen.includes(key));
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const unknown = args.filter((a) => a.startsWith('-') && a !== '--json');
  if (unknown.length > 0) throw new Error(`unknown option ${unknown[0]}; usage: run.js [--json] [suite...]`);
  const json = args.includes('--json');
  const suites = await loadSuites();
  const chosen = select(suites, args.filter((a) => !a.startsWith('-')));
  const facts = machine();
  const date = new Date().toISOString();
  console.log(`shellring bench: ${facts.cpu}, ${facts.cores} cores, node ${facts.node}, ${date}\n`);
  const results: Record<string, SuiteResult & { seconds: number }> = {};
  const started = performance.now();
  for (const name of chosen) {
    const t0 = performance.now();
    const result = await suites.get(name)!.run();
    const seconds = (performance.now() - t0) / 1000;
    results[name] = { ...result, seconds };
    console.log(renderSuite(result, seconds));
  }
  const seconds = (performance.now() - started) / 1000;
  const verdicts = Object.values(results).flatMap((r) => r.targets);
  const met = verdicts.filter((t) => t.met).length;
  console.log(`${chosen.length} suite(s) in ${seconds.toFixed(1)} s; targets met: ${met} of ${verdicts.length}`);
  if (json) {
    fs.mkdirSync(path.dirname(resultsFile), { recursive: true });
    fs.writeFileSync(resultsFile, stableJson({ date, machine: facts, suites: results, selected: chosen, seconds }));
    console.log(`wrote ${path.relative(process.cwd(), resultsFile)}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
