// Per-iteration timings through tinybench, turned into MB/s and ops/s figures.
import { Bench } from 'tinybench';
import type { Figure } from './rows.js';
import { mbPerSecond, MiB } from './units.js';

export interface ByteTask {
  name: string;
  /** Bytes one call moves, and how many operations (chunks) that is. */
  bytes: number;
  ops: number;
  /** Returns a number derived from the work, summed so the engine cannot drop the work as unused. */
  fn: () => number;
  baseline?: string;
}

export interface TinyOptions {
  /** Measured time budget per task in ms. */
  time: number;
  warmupTime: number;
}

/** Every task's results flow into this module-level sum, so the engine cannot drop the work as unused. */
export let sink = 0;

/**
 * Runs the tasks one after another, each in its own Bench with an event-loop turn in between: tinybench runs a
 * synchronous task on microtasks only, and Node runs N-API finalizers (which free native memory handed to JS)
 * from the event loop, so one task's pending frees must not spill into the next task's figures.
 *
 * A task's figure is its median call time as MB/s (and ops/s), with the RSS growth over its measured phase.
 */
export async function measure(tasks: readonly ByteTask[], options: TinyOptions): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const task of tasks) {
    const bench = new Bench({ time: options.time, warmupTime: options.warmupTime, throws: true });
    let rssBefore = 0;
    let rssAfter = 0;
    bench.add(
      task.name,
      () => {
        sink += task.fn();
      },
      {
        async: false,
        beforeAll: (mode) => {
          if (mode === 'run') rssBefore = process.memoryUsage.rss();
        },
        afterAll: (mode) => {
          if (mode === 'run') rssAfter = process.memoryUsage.rss();
        },
      },
    );
    await bench.run();
    await new Promise((resolve) => setImmediate(resolve));
    const result = bench.getTask(task.name)?.result;
    if (result === undefined || (result.state !== 'completed' && result.state !== 'aborted-with-statistics')) {
      throw new Error(`benchmark task ${task.name} did not complete (${result?.state ?? 'missing'})`);
    }
    const ms = result.latency.p50;
    const figure: Figure = {
      name: task.name,
      value: mbPerSecond(task.bytes, ms),
      unit: 'MB/s',
      extra: {
        'ops/s': (task.ops * 1000) / ms,
        'rme %': result.latency.rme,
        samples: result.latency.samplesCount,
        'rss +MiB': (rssAfter - rssBefore) / MiB,
      },
    };
    if (task.baseline !== undefined) figure.baseline = task.baseline;
    figures.push(figure);
  }
  return figures;
}
