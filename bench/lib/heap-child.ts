// The main thread's cost per spawn with and without ~1 GiB held by the host, in a fresh process started by the
// executor-latency suite as `node --expose-gc --max-old-space-size=4096 heap-child.js`; prints one JSON line.
import { performance } from 'node:perf_hooks';
import { LocalExecutor } from '../../src/index.js';
import { asyncRounds, type AsyncCase } from './async-rounds.js';
import { bareSpawnTimed } from './js-capture.js';
import { withLoopDelay } from './loop-delay.js';
import { spread, type Spread } from './percentiles.js';
import { HEAP_EXECUTOR, HEAP_SPAWN, type HeapCase, type HeapReport } from './heap-report.js';
import { MiB } from './units.js';

const EXECUTOR = HEAP_EXECUTOR;
const SPAWN = HEAP_SPAWN;
const PER_ROUND = 40;
const ROUNDS = 3;
/** Half the held memory as a graph of small objects (what a GC walks), half as filled ArrayBuffers. */
const OBJECT_BYTES = 512 * MiB;
const BUFFER_BYTES = 512 * MiB;

const held: unknown[] = [];

function hold(): void {
  // About 64 bytes per object with its array slot on a 64-bit heap without pointer compression.
  const perArray = 1 << 20;
  for (let made = 0; made < OBJECT_BYTES; made += perArray * 64) {
    const objects = new Array(perArray);
    for (let i = 0; i < perArray; i++) objects[i] = { a: i, b: made, c: null, d: objects };
    held.push(objects);
  }
  for (let made = 0; made < BUFFER_BYTES; made += 64 * MiB) held.push(new Uint8Array(64 * MiB).fill(1));
}

interface Timed {
  syncMs: number;
  wallMs: number;
}

async function measure(executor: LocalExecutor, label: string): Promise<Record<string, HeapCase>> {
  const start = (kind: string): Promise<Timed> => {
    if (kind === SPAWN) return bareSpawnTimed('true');
    const t0 = performance.now();
    const running = executor.run(executor.resolve({ command: 'true' }));
    const syncMs = performance.now() - t0;
    return running.then((r) => {
      if (r.exitCode !== 0) throw new Error(`${label}: exit ${r.exitCode}`);
      return { syncMs, wallMs: performance.now() - t0 };
    });
  };
  const cases: AsyncCase<{ runs: Timed[]; delay: Spread }>[] = [EXECUTOR, SPAWN].map((name) => ({
    name,
    once: async () => {
      const runs: Timed[] = [];
      const { delay } = await withLoopDelay(async () => {
        for (let i = 0; i < PER_ROUND; i++) runs.push(await start(name));
      });
      return { runs, delay };
    },
  }));
  const rounds = await asyncRounds(cases, ROUNDS);
  const out: Record<string, HeapCase> = {};
  for (const [name, list] of rounds) {
    const runs = list.flatMap((r) => r.runs);
    const delays = list.map((r) => r.delay);
    out[name] = {
      sync: spread(runs.map((r) => r.syncMs)),
      delay: { p50: Math.max(...delays.map((d) => d.p50)), p99: Math.max(...delays.map((d) => d.p99)), max: Math.max(...delays.map((d) => d.max)) },
      latencyP50: spread(runs.map((r) => r.wallMs)).p50,
    };
  }
  return out;
}

const executor = new LocalExecutor({ maxSpillBytes: 0 });
try {
  for (let i = 0; i < 20; i++) await executor.run(executor.resolve({ command: 'true' }));
  const before = await measure(executor, 'small heap');
  const t0 = performance.now();
  hold();
  const allocSeconds = (performance.now() - t0) / 1000;
  // Pays the allocation's GC debt (incremental marking started by it) before anything is measured.
  (globalThis as { gc?: () => void }).gc?.();
  (globalThis as { gc?: () => void }).gc?.();
  for (let i = 0; i < 20; i++) await executor.run(executor.resolve({ command: 'true' }));
  const after = await measure(executor, '1 GiB heap');
  const cases: Record<string, HeapCase> = {};
  for (const [name, c] of Object.entries(before)) cases[`${name}, small heap`] = c;
  for (const [name, c] of Object.entries(after)) cases[`${name}, 1 GiB held`] = c;
  const report: HeapReport = {
    heapMiB: process.memoryUsage().heapUsed / MiB,
    rssMiB: process.memoryUsage.rss() / MiB,
    allocSeconds,
    cases,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
} finally {
  await executor.close();
}
if (held.length === 0) throw new Error('nothing held');
