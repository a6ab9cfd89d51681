// Host RSS while 32 commands print 1 GiB each at once, in a fresh process started by the executor-rss suite as
// `node --expose-gc rss-child.js <executor|child_process>`; prints one JSON line.
import { performance } from 'node:perf_hooks';
import { LocalExecutor } from '../../src/index.js';
import { jsCapture } from './js-capture.js';
import { GiB, MiB } from './units.js';

export interface RssSample {
  before: number;
  max: number;
  after: number;
  seconds: number;
  samples: number;
}

const COMMANDS = 32;
const EACH = GiB;
const CAP = 64000;
const SAMPLE_MS = 20;

const who = process.argv[2];
const command = (bytes: number): string => `head -c ${bytes} /dev/zero`;

async function load(executor: LocalExecutor | undefined, count: number, bytes: number): Promise<void> {
  const one = async (): Promise<void> => {
    if (executor) {
      const r = await executor.run(executor.resolve({ command: command(bytes), timeoutMs: 600_000 }));
      if (r.exitCode !== 0 || r.stdout.text.length !== Math.min(bytes, CAP)) throw new Error(`executor: exit ${r.exitCode}`);
    } else {
      const r = await jsCapture(command(bytes), CAP);
      if (r.code !== 0 || r.stdoutBytes !== bytes) throw new Error(`child_process: exit ${r.code}, ${r.stdoutBytes} bytes`);
    }
  };
  await Promise.all(Array.from({ length: count }, one));
}

// Tail only: what is measured is the capture path, not spill files.
const executor = who === 'executor' ? new LocalExecutor({ maxSpillBytes: 0 }) : undefined;
try {
  // One small command first: workers, code and the first arenas exist before the reading `before`.
  await load(executor, 1, MiB);
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage.rss();
  let max = before;
  let samples = 0;
  const timer = setInterval(() => {
    max = Math.max(max, process.memoryUsage.rss());
    samples++;
  }, SAMPLE_MS);
  const t0 = performance.now();
  await load(executor, COMMANDS, EACH);
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(timer);
  const after = process.memoryUsage.rss();
  const sample: RssSample = { before, max: Math.max(max, after), after, seconds, samples };
  process.stdout.write(`${JSON.stringify(sample)}\n`);
} finally {
  await executor?.close();
}
