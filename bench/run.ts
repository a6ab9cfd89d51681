// The benchmark runner: runs the suites in bench/suites (all, or those named), each in a fresh process,
// prints them, and with --json writes bench/results/latest.json.
//   npm run bench                   every suite
//   npm run bench -- ring spill     the named suites (a name may also be a suite's alias, e.g. capture)
//   npm run bench -- --json         also write bench/results/latest.json (a run of named suites replaces
//                                   theirs and keeps the others', each suite with its own date, commit,
//                                   machine and load at its start)
//   --max-load=<n>|none             start a suite only at a 1-minute load of at most n (default 1.5 x cores),
//                                   waiting --load-wait=<seconds> (default 300) for it before refusing the suite;
//                                   none runs every suite whatever the load (the table marks what ran above it)
import { fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { stableJson } from './lib/json.js';
import { awaitQuiet, loadLimit, loadNow } from './lib/load-gate.js';
import { machine } from './lib/machine.js';
import { codeState, provenance, type Provenance } from './lib/provenance.js';
import { renderSuite } from './lib/print.js';
import type { Suite, SuiteResult } from './lib/types.js';

/** A mistake on the command line: reported as one line, without a stack. */
class UsageError extends Error {}

const self = fileURLToPath(import.meta.url);
const here = path.dirname(self);
/** Internal: the runner re-started to run one suite and send its result back over the IPC channel. */
const SUITE_FLAG = '--suite=';
const suitesDir = path.join(here, 'suites');
// The compiled runner lives in dist/bench; the results file belongs to the source tree.
const repo = path.resolve(here, '../..');
/** Another results file (tests write one of their own); the commit measured is still this checkout's. */
const resultsFile = process.env.SHELLRING_BENCH_RESULTS ?? path.join(repo, 'bench/results/latest.json');

/** The results already written, each as it was stored: its provenance is its own (or missing), never this run's. */
function keptResults(): Record<string, unknown> {
  if (!fs.existsSync(resultsFile)) return {};
  return (JSON.parse(fs.readFileSync(resultsFile, 'utf8')) as { suites?: Record<string, unknown> }).suites ?? {};
}

/** Results in the order of the suites' names. */
function suitesOrder(known: Map<string, Suite>, results: Record<string, unknown>): [string, unknown][] {
  return [...known.keys()].filter((name) => name in results).map((name) => [name, results[name]]);
}

async function loadSuites(): Promise<Map<string, Suite>> {
  const suites = new Map<string, Suite>();
  const files = fs.readdirSync(suitesDir).filter((f) => f.endsWith('.js')).sort();
  for (const file of files) {
    const module = (await import(path.join(suitesDir, file))) as Suite;
    if (typeof module.run === 'function') suites.set(path.basename(file, '.js'), module);
  }
  return suites;
}

function select(suites: Map<string, Suite>, names: string[]): string[] {
  if (names.length === 0) return [...suites.keys()];
  const chosen: string[] = [];
  for (const name of names) {
    const matches = [...suites].filter(([key, s]) => key === name || s.aliases?.includes(name)).map(([key]) => key);
    if (matches.length === 0) {
      const known = [...suites].map(([key, s]) => (s.aliases?.length ? `${key} (${s.aliases.join(', ')})` : key));
      throw new UsageError(`unknown suite ${JSON.stringify(name)}; suites: ${known.join(', ')}`);
    }
    for (const key of matches) if (!chosen.includes(key)) chosen.push(key);
  }
  // Always in the order of the directory, whatever order they were named in.
  return [...suites.keys()].filter((key) => chosen.includes(key));
}

/**
 * Runs one suite in a child process: memory a suite leaves behind (a heap grown by garbage, native buffers
 * still awaiting their finalizers) would otherwise weigh on the next suite's figures.
 */
function runInChild(name: string): Promise<SuiteResult> {
  return new Promise((resolve, reject) => {
    let result: SuiteResult | undefined;
    const child = fork(self, [`${SUITE_FLAG}${name}`], { stdio: 'inherit' });
    child.on('message', (message) => {
      result = message as SuiteResult;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code === 0 && result !== undefined) resolve(result);
      else reject(new Error(`suite ${name} failed (${signal ?? `exit code ${code}`})`));
    });
  });
}

async function runChild(name: string): Promise<void> {
  const suite = (await loadSuites()).get(name);
  if (suite === undefined) throw new Error(`unknown suite ${name}`);
  const result = await suite.run();
  await new Promise<void>((resolve, reject) => process.send!(result, (e: Error | null) => (e ? reject(e) : resolve())));
  process.disconnect();
}

const USAGE = 'usage: run.js [--json] [--max-load=<n>|none] [--load-wait=<seconds>] [suite...]';

/** The value of `--name=value`, or undefined. */
function option(args: string[], name: string): string | undefined {
  return args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

function number(text: string, what: string): number {
  const value = Number(text);
  if (text === '' || !Number.isFinite(value) || value < 0) throw new UsageError(`${what} must be a number of at least 0, got ${JSON.stringify(text)}; ${USAGE}`);
  return value;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const child = args.find((a) => a.startsWith(SUITE_FLAG));
  if (child !== undefined) return runChild(child.slice(SUITE_FLAG.length));
  const unknown = args.filter((a) => a.startsWith('-') && a !== '--json' && !/^--(max-load|load-wait)=/.test(a));
  if (unknown.length > 0) throw new UsageError(`unknown option ${unknown[0]}; ${USAGE}`);
  const json = args.includes('--json');
  const facts = machine();
  const maxLoad = option(args, 'max-load');
  const limit = maxLoad === 'none' ? Number.POSITIVE_INFINITY : maxLoad === undefined ? loadLimit(facts.cores) : number(maxLoad, '--max-load');
  const whence = maxLoad === undefined ? `1.5 x ${facts.cores} cores` : '--max-load';
  const waitMs = number(option(args, 'load-wait') ?? '300', '--load-wait') * 1000;
  const suites = await loadSuites();
  const chosen = select(suites, args.filter((a) => !a.startsWith('-')));
  const code = codeState(repo);
  const date = new Date().toISOString();
  const tree = `${code.commit.slice(0, 10)}${code.dirty ? ' with uncommitted changes' : ''}`;
  const bound = maxLoad === 'none' ? 'any load' : `load at most ${limit}`;
  console.log(`shellring bench: ${facts.cpu}, ${facts.cores} cores (machine ${facts.fingerprint}), node ${facts.node}, load ${loadNow()} (suites start at ${bound}), ${date}, ${tree}\n`);
  const results: Record<string, SuiteResult & Provenance & { seconds: number }> = {};
  const failed: string[] = [];
  const refused: string[] = [];
  const started = performance.now();
  for (const name of chosen) {
    const gate = await awaitQuiet({
      limit,
      waitMs,
      onWait: (load) => console.log(`${name}: the 1-minute load is ${load}, above ${limit}; waiting up to ${waitMs / 1000} s for it to come down`),
    });
    if (!gate.quiet) {
      console.error(
        `${name} not run: the 1-minute load is ${gate.load}, above ${limit} (${whence}), after ${Math.round(gate.waitedMs / 1000)} s of waiting; run it on a quieter machine, or with --max-load=none to have its rows marked\n`,
      );
      refused.push(name);
      continue;
    }
    const t0 = performance.now();
    // A suite that fails is reported and the others still run: a long run is not lost to one broken suite.
    const result = await runInChild(name).catch((error: Error) => {
      console.error(`${error.message}\n`);
      failed.push(name);
    });
    if (!result) continue;
    const seconds = (performance.now() - t0) / 1000;
    results[name] = { ...result, seconds, ...provenance(code, facts, gate.load) };
    console.log(renderSuite(result, seconds));
  }
  const seconds = (performance.now() - started) / 1000;
  const verdicts = Object.values(results).flatMap((r) => r.targets);
  const met = verdicts.filter((t) => t.met).length;
  const failures = failed.length > 0 ? `; failed: ${failed.join(', ')}` : '';
  const refusals = refused.length > 0 ? `; not run under load: ${refused.join(', ')}` : '';
  console.log(`${chosen.length} suite(s) in ${seconds.toFixed(1)} s; targets met: ${met} of ${verdicts.length}${failures}${refusals}`);
  if (failed.length > 0 || refused.length > 0) process.exitCode = 1;
  if (json) {
    fs.mkdirSync(path.dirname(resultsFile), { recursive: true });
    const merged = Object.fromEntries(suitesOrder(suites, { ...keptResults(), ...results }));
    fs.writeFileSync(resultsFile, stableJson({ suites: merged }));
    console.log(`wrote ${path.relative(process.cwd(), resultsFile)}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof UsageError ? error.message : error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
  // A failed suite may leave a handle open (a server it did not stop): its process ends anyway, so the run goes on.
  if (process.argv.some((a) => a.startsWith(SUITE_FLAG))) process.exit();
});
