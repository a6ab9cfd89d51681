// Executor latency suite: `true` end to end through LocalExecutor.run against a bare child_process.spawn, short
// commands per second with 32 in flight, and the main thread's time per spawn while the host holds 1 GiB.
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { sequentialMs } from '../lib/timed.js';
import { fileURLToPath } from 'node:url';
import { LocalExecutor } from '../../src/index.js';
import { atMost } from '../lib/at-most.js';
import { asyncRounds, roundRatios, type AsyncCase } from '../lib/async-rounds.js';
import { HEAP_EXECUTOR, HEAP_SPAWN, type HeapReport } from '../lib/heap-report.js';
import { bareSpawn } from '../lib/js-capture.js';
import { spread } from '../lib/percentiles.js';
import { find, target, withRatios, type Figure } from '../lib/rows.js';
import type { SuiteResult } from '../lib/types.js';
import { fmt, median } from '../lib/units.js';

const HEAP_CHILD = fileURLToPath(new URL('../lib/heap-child.js', import.meta.url));
const EXECUTOR = 'executor run';
const SPAWN = 'child_process.spawn bash -c true';
const LATENCY_ROUNDS = 4;
const PER_ROUND = 50;
const IN_FLIGHT = 32;
const RATE_COMMANDS = 256;
const RATE_ROUNDS = 3;
const TARGET_LATENCY = 1.3;
const TARGET_RATE = 100;
const TARGET_BLOCKED_MS = 1;

function once(executor: LocalExecutor, name: string): Promise<unknown> {
  if (name === SPAWN) {
    return bareSpawn('true').then((code) => {
      if (code !== 0) throw new Error(`bare spawn: exit ${code}`);
    });
  }
  return executor.run(executor.resolve({ command: 'true' })).then((r) => {
    if (r.exitCode !== 0) throw new Error(`executor: exit ${r.exitCode}`);
  });
}

async function latencies(executor: LocalExecutor): Promise<Figure[]> {
  const cases: AsyncCase<number[]>[] = [SPAWN, EXECUTOR].map((name) => ({
    name,
    once: () => sequentialMs(() => once(executor, name), PER_ROUND),
  }));
  const rounds = await asyncRounds(cases, LATENCY_ROUNDS);
  const p50s = (name: string): number[] => rounds.get(name)!.map((ms) => spread(ms).p50);
  return [SPAWN, EXECUTOR].map((name) => {
    const all = spread(rounds.get(name)!.flat());
    const f: Figure = {
      name: `${name}: latency`,
      value: all.p50,
      unit: 'p50 ms',
      extra: { 'p99 ms': all.p99, 'max ms': all.max, runs: rounds.get(name)!.flat().length, 'rounds p50 ms': p50s(name) },
    };
    if (name !== SPAWN) {
      f.baseline = `${SPAWN}: latency`;
      f.ratio = median(roundRatios(p50s(name), p50s(SPAWN)));
    }
    return f;
  });
}

/** Keeps `IN_FLIGHT` commands running until `RATE_COMMANDS` have finished. */
async function sustained(executor: LocalExecutor, name: string): Promise<number> {
  let started = 0;
  const lane = async (): Promise<void> => {
    while (started < RATE_COMMANDS) {
      started++;
      await once(executor, name);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return RATE_COMMANDS / ((performance.now() - t0) / 1000);
}

async function rates(executor: LocalExecutor): Promise<Figure[]> {
  const cases: AsyncCase<number>[] = [SPAWN, EXECUTOR].map((name) => ({ name, once: () => sustained(executor, name) }));
  const rounds = await asyncRounds(cases, RATE_ROUNDS);
  return [SPAWN, EXECUTOR].map((name) => {
    const f: Figure = {
      name: `${name}: ${IN_FLIGHT} in flight`,
      value: median(rounds.get(name)!),
      unit: 'commands/s',
      extra: { 'rounds commands/s': rounds.get(name)! },
    };
    if (name !== SPAWN) {
      f.baseline = `${SPAWN}: ${IN_FLIGHT} in flight`;
      f.ratio = median(roundRatios(rounds.get(name)!, rounds.get(SPAWN)!));
    }
    return f;
  });
}

function heapFigures(report: HeapReport): Figure[] {
  const figures: Figure[] = [];
  for (const heap of ['small heap', '1 GiB held']) {
    const base = `${HEAP_SPAWN}, ${heap}`;
    for (const name of [base, `${HEAP_EXECUTOR}, ${heap}`]) {
      const c = report.cases[name]!;
      const f: Figure = {
        name,
        value: c.sync.p50,
        unit: 'sync ms p50',
        extra: {
          'sync p99 ms': c.sync.p99,
          'sync max ms': c.sync.max,
          'loop delay p99 ms': c.delay.p99,
          'loop delay max ms': c.delay.max,
          'latency p50 ms': c.latencyP50,
        },
      };
      if (name !== base) f.baseline = base;
      figures.push(f);
    }
  }
  return figures;
}

export async function run(): Promise<SuiteResult> {
  const executor = new LocalExecutor({ maxSpillBytes: 0 });
  let latencyRows;
  let rateRows;
  try {
    for (let i = 0; i < 20; i++) await Promise.all([once(executor, EXECUTOR), once(executor, SPAWN)]);
    latencyRows = withRatios(await latencies(executor));
    rateRows = withRatios(await rates(executor));
  } finally {
    await executor.close();
  }
  // A fresh process, so the held gigabyte weighs on nothing else.
  const report = JSON.parse(
    execFileSync(process.execPath, ['--expose-gc', '--max-old-space-size=4096', HEAP_CHILD], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  ) as HeapReport;
  const heapRows = withRatios(heapFigures(report));
  const latency = find(latencyRows, `${EXECUTOR}: latency`);
  const bare = find(latencyRows, `${SPAWN}: latency`);
  const rate = find(rateRows, `${EXECUTOR}: ${IN_FLIGHT} in flight`);
  const bareRate = find(rateRows, `${SPAWN}: ${IN_FLIGHT} in flight`);
  const held = find(heapRows, `${HEAP_EXECUTOR}, 1 GiB held`);
  const heldSpawn = find(heapRows, `${HEAP_SPAWN}, 1 GiB held`);
  const extra = (name: string): number => held.extra![name] as number;
  return {
    name: 'executor-latency',
    description: '`true` through LocalExecutor.run: latency, sustained rate, and main-thread time per spawn',
    tables: [
      { title: `latency of \`true\`, spawn to result (${LATENCY_ROUNDS} x ${PER_ROUND} runs each)`, rows: latencyRows },
      { title: `${RATE_COMMANDS} short commands with ${IN_FLIGHT} in flight`, rows: rateRows },
      {
        title: `main thread per spawn, fresh process; then ~1 GiB held (${fmt(report.rssMiB)} MiB RSS, ${fmt(report.heapMiB)} MiB JS heap)`,
        rows: heapRows,
      },
    ],
    targets: [
      atMost(
        `executor latency of \`true\` <= ${TARGET_LATENCY}x bare spawn (p50)`,
        latency.ratio,
        TARGET_LATENCY,
        `${fmt(latency.ratio)}x (p50 ${fmt(latency.value)} vs ${fmt(bare.value)} ms; p99 ${fmt(latency.extra!['p99 ms'] as number)} vs ${fmt(bare.extra!['p99 ms'] as number)} ms)`,
      ),
      target(
        `executor >= ${TARGET_RATE} short commands/s with ${IN_FLIGHT} in flight`,
        rate.value,
        TARGET_RATE,
        `${fmt(rate.value)}/s (bare spawn: ${fmt(bareRate.value)}/s, ${fmt(rate.ratio)}x)`,
      ),
      atMost(
        `executor: main thread blocked <= ${TARGET_BLOCKED_MS} ms per spawn with 1 GiB held (median)`,
        held.value,
        TARGET_BLOCKED_MS,
        `${fmt(held.value)} ms median, p99 ${fmt(extra('sync p99 ms'))} ms, loop delay max ${fmt(extra('loop delay max ms'))} ms ` +
          `(main-thread spawn: ${fmt(heldSpawn.value)} ms median, p99 ${fmt(heldSpawn.extra!['sync p99 ms'] as number)} ms)`,
      ),
    ],
    notes: [
      'Latency: one command at a time, spawn to result (executor: run() resolved; bare: the child\'s exit event), ' +
        `${LATENCY_ROUNDS} rounds of ${PER_ROUND} per case, order rotated; ratio = median of per-round p50 ratios.`,
      `Rate: ${RATE_COMMANDS} \`true\` commands, ${IN_FLIGHT} kept in flight; median of ${RATE_ROUNDS} rounds.`,
      'Main thread per spawn: in a fresh `node --expose-gc --max-old-space-size=4096` process, `true` run one at a time ' +
        '(3 rounds x 40 per case): sync = the synchronous part of executor.run(...) or of child_process.spawn(...); ' +
        'loop delay = monitorEventLoopDelay (1 ms resolution, includes the 1 ms tick) over the case, worst round. ' +
        `Then ~512 MiB of small JS objects plus 512 MiB of filled ArrayBuffers are held (allocated in ${fmt(report.allocSeconds)} s, ` +
        'then two full GCs) and the same is measured again.',
      'Executor: default 2 worker threads, tail only (maxSpillBytes 0).',
    ],
  };
}
