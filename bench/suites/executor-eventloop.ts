// Event-loop suite: the main thread's loop delay while 1, 8 and 32 commands each print 100 MiB at once, through
// the executor (pipes read by native threads) against child_process on the main thread (pipes read in JS).
import { LocalExecutor } from '../../src/index.js';
import { atMost } from '../lib/at-most.js';
import { asyncRounds, roundRatios, type AsyncCase } from '../lib/async-rounds.js';
import { jsCapture } from '../lib/js-capture.js';
import { LOOP_RESOLUTION_MS, withLoopDelay } from '../lib/loop-delay.js';
import type { Spread } from '../lib/percentiles.js';
import { mainThreadSched, schedSince, type Sched } from '../lib/schedstat.js';
import { find, withRatios, type Figure } from '../lib/rows.js';
import type { SuiteResult, Table } from '../lib/types.js';
import { fmt, median, MiB } from '../lib/units.js';

const CAP = 64000;
const EACH = 100 * MiB;
const COMMAND = `head -c ${EACH} /dev/zero`;
const COUNTS = [1, 8, 32];
const ROUNDS = 3;
const TARGET_P99_MS = 5;
const TARGET_MAX_MS = 25;

interface Sample {
  delay: Spread;
  wallMs: number;
  /** The main thread's own CPU time and its time runnable but waiting for a CPU. */
  sched: Sched | null;
}

const executorName = (n: number): string => `executor, ${n} x 100 MiB`;
const jsName = (n: number): string => `child_process + JS tail, ${n} x 100 MiB`;

async function timedDelay(body: () => Promise<void>): Promise<Sample> {
  const sched = mainThreadSched();
  const start = performance.now();
  const { delay } = await withLoopDelay(body);
  return { delay, wallMs: performance.now() - start, sched: schedSince(sched) };
}

function cases(executor: LocalExecutor, n: number, bytes: number): AsyncCase<Sample>[] {
  const command = `head -c ${bytes} /dev/zero`;
  const all = <T>(one: () => Promise<T>): Promise<T[]> => Promise.all(Array.from({ length: n }, one));
  return [
    {
      name: jsName(n),
      once: () =>
        timedDelay(async () => {
          for (const r of await all(() => jsCapture(command, CAP))) {
            if (r.code !== 0 || r.stdoutBytes !== bytes) throw new Error(`child_process: exit ${r.code}, ${r.stdoutBytes} bytes`);
          }
        }),
    },
    {
      name: executorName(n),
      once: () =>
        timedDelay(async () => {
          for (const r of await all(() => executor.run(executor.resolve({ command })))) {
            if (r.exitCode !== 0 || !r.stdout.truncated || r.stdout.text.length !== CAP) {
              throw new Error(`executor: exit ${r.exitCode}, tail ${r.stdout.text.length}`);
            }
          }
        }),
    },
  ];
}

function figures(samples: Map<string, Sample[]>, n: number): Figure[] {
  const figure = (name: string, baseline?: string): Figure => {
    const list = samples.get(name)!;
    const f: Figure = {
      name,
      value: median(list.map((s) => s.delay.p99)),
      unit: 'p99 ms',
      extra: {
        'p50 ms': median(list.map((s) => s.delay.p50)),
        'max ms': median(list.map((s) => s.delay.max)),
        'worst max ms': Math.max(...list.map((s) => s.delay.max)),
        'wall s': median(list.map((s) => s.wallMs)) / 1000,
        'main cpu ms': list.every((s) => s.sched) ? median(list.map((s) => s.sched!.cpuMs)) : '-',
        'main runq wait ms': list.every((s) => s.sched) ? median(list.map((s) => s.sched!.waitMs)) : '-',
        'runs p99 ms': list.map((s) => s.delay.p99),
      },
    };
    if (baseline !== undefined) {
      f.baseline = baseline;
      const p99 = (k: string): number[] => samples.get(k)!.map((s) => s.delay.p99);
      f.ratio = median(roundRatios(p99(name), p99(baseline)));
    }
    return f;
  };
  return [figure(jsName(n)), figure(executorName(n), jsName(n))];
}

export async function run(): Promise<SuiteResult> {
  // Tail only: the JS baseline keeps a tail and nothing else, and 32 spill files would measure the disk.
  const executor = new LocalExecutor({ maxSpillBytes: 0 });
  const tables: Table[] = [];
  try {
    for (const n of COUNTS) await asyncRounds(cases(executor, n, MiB), 1);
    for (const n of COUNTS) {
      const rows = withRatios(figures(await asyncRounds(cases(executor, n, EACH), ROUNDS), n));
      tables.push({ title: `${n} command(s) printing 100 MiB each at once`, rows });
    }
  } finally {
    await executor.close();
  }
  const last = tables[tables.length - 1]!.rows;
  const row = find(last, executorName(32));
  const base = find(last, jsName(32));
  const max = row.extra!['max ms'] as number;
  return {
    name: 'executor-eventloop',
    description: `main-thread event-loop delay (monitorEventLoopDelay, resolution ${LOOP_RESOLUTION_MS} ms) under \`${COMMAND}\``,
    tables,
    targets: [
      atMost(
        `executor, 32 commands: event-loop delay p99 <= ${TARGET_P99_MS} ms`,
        row.value,
        TARGET_P99_MS,
        `${fmt(row.value)} ms (child_process on the main thread: ${fmt(base.value)} ms)`,
      ),
      atMost(
        `executor, 32 commands: event-loop delay max <= ${TARGET_MAX_MS} ms`,
        max,
        TARGET_MAX_MS,
        `${fmt(max)} ms, worst round ${fmt(row.extra!['worst max ms'] as number)} ms ` +
          `(child_process on the main thread: ${fmt(base.extra!['max ms'] as number)} ms)`,
      ),
    ],
    notes: [
      `Each figure is the median over ${ROUNDS} rounds (executor and child_process alternating first), after one ` +
        'pass at 1 MiB per command; the ratio is the median of per-round p99 ratios.',
      `Delays are as monitorEventLoopDelay reports them: whole timer intervals, so an idle loop reads about ` +
        `${LOOP_RESOLUTION_MS} ms, not 0. The histogram covers the spawns, the output and the results.`,
      'main cpu / main runq wait: the main thread\'s own CPU time and its time runnable but waiting for a CPU ' +
        '(/proc/<pid>/task/<pid>/schedstat) over the case: a loop delay with little CPU and much waiting is ' +
        'the scheduler sharing 2 cores among many busy threads, not work on the loop.',
      'Executor: LocalExecutor.run, default 2 worker threads, tail only (maxSpillBytes 0). child_process: ' +
        'spawn(bash -c) on the main thread, both pipes read in JS into a 64000-byte Buffer.concat-and-slice tail.',
    ],
  };
}
