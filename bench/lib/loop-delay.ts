// The main thread's event-loop delay while an async body runs, through perf_hooks.monitorEventLoopDelay.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Spread } from './percentiles.js';

/** Timer resolution of the monitor in ms: a delay shorter than this cannot be seen. */
export const LOOP_RESOLUTION_MS = 1;

/**
 * Runs `body` with the monitor on and returns its result with the delays in ms. Node records each whole
 * interval between timer ticks, so an idle loop reads about LOOP_RESOLUTION_MS, not 0: figures are as Node
 * reports them, the tick included. The monitor's first tick records nothing (it only starts the first interval), so
 * `body` starts after it: a stall in the turn that starts the body (hundreds of calls made at once) is counted.
 */
export async function withLoopDelay<T>(body: () => Promise<T>): Promise<{ result: T; delay: Spread }> {
  const histogram = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  histogram.enable();
  try {
    await new Promise((resolve) => setTimeout(resolve, 3 * LOOP_RESOLUTION_MS));
    const result = await body();
    histogram.disable();
    const ms = (ns: number): number => ns / 1e6;
    return { result, delay: { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) } };
  } finally {
    histogram.disable();
  }
}
