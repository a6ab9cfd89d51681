// Executor latency suite: `true` end to end through LocalExecutor.run against a bare child_process.spawn, short
// commands per second with 32 in flight, and the main thread's time per spawn while the host holds 1 GiB.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { atMost } from '../lib/at-most.js';
import { HEAP_EXECUTOR, HEAP_SPAWN, type HeapReport } from '../lib/heap-report.js';
import { find, target, withRatios, type Figure } from '../lib/rows.js';
import { BARE, EXECUTOR } from '../lib/spawn-child.js';
import { latencyFigure, rateFigure, spawnHost } from '../lib/spawn-host.js';
import type { SuiteResult } from '../lib/types.js';
import { fmt } from '../lib/units.js';

const HEAP_CHILD = fileURLToPath(new URL('../lib/heap-child.js', import.meta.url));
const IN_FLIGHT = 32;
const TARGET_LATENCY = 1.3;
const TARGET_RATE = 100;
const TARGET_BLOCKED_MS = 1;

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
  // The bare spawn is the shared baseline: measured in the same fresh host, the same way, as process-spawn's.
  const spawns = spawnHost(0);
  const latencyRows = withRatios([latencyFigure(spawns, BARE), latencyFigure(spawns, EXECUTOR)]);
  const rateRows = withRatios([rateFigure(spawns, BARE), rateFigure(spawns, EXECUTOR)]);
  // A fresh process, so the held gigabyte weighs on nothing else.
  const report = JSON.parse(
    execFileSync(process.execPath, ['--expose-gc', '--max-old-space-size=4096', HEAP_CHILD], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  ) as HeapReport;
  const heapRows = withRatios(heapFigures(report));
  const latency = find(latencyRows, EXECUTOR);
  const bare = find(latencyRows, BARE);
  const rate = find(rateRows, EXECUTOR);
  const bareRate = find(rateRows, BARE);
  const held = find(heapRows, `${HEAP_EXECUTOR}, 1 GiB held`);
  const heldSpawn = find(heapRows, `${HEAP_SPAWN}, 1 GiB held`);
  const extra = (name: string): number => held.extra![name] as number;
  return {
    name: 'executor-latency',
    description: '`true` through LocalExecutor.run: latency, sustained rate, and main-thread time per spawn',
    tables: [
      { title: 'latency of `true`, spawn to result, from a small host (the shared spawn host)', rows: latencyRows },
      { title: `short commands (\`true\`) with ${IN_FLIGHT} in flight, from the same host`, rows: rateRows },
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
      'Latency and rate come from the spawn host shared with process-spawn (bench/lib/spawn-child.js 0, a fresh node ' +
        'process): one command at a time, spawn to result (executor: run() resolved; bare: the child\'s exit event), ' +
        '5 rounds of 40 per case after 20 warm-up calls, order rotated, ratio = median of per-round p50 ratios; rate: ' +
        `5 rounds of 320 commands with ${IN_FLIGHT} in flight, ratio = median of per-round ratios.`,
      'Main thread per spawn: in a fresh `node --expose-gc --max-old-space-size=4096` process, `true` run one at a time ' +
        '(3 rounds x 40 per case): sync = the synchronous part of executor.run(...) or of child_process.spawn(...); ' +
        'loop delay = monitorEventLoopDelay (1 ms resolution, includes the 1 ms tick) over the case, worst round. ' +
        `Then ~512 MiB of small JS objects plus 512 MiB of filled ArrayBuffers are held (allocated in ${fmt(report.allocSeconds)} s, ` +
        'then two full GCs) and the same is measured again.',
      'Executor: default 2 worker threads, tail only (maxSpillBytes 0).',
    ],
  };
}
