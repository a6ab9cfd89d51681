// What heap-child.js reports to the executor-latency suite: kept apart, because importing heap-child runs it.
import type { Spread } from './percentiles.js';

export const HEAP_EXECUTOR = 'executor run';
export const HEAP_SPAWN = 'child_process.spawn (main thread)';

export interface HeapCase {
  /** Synchronous part of the call that starts the command, per spawn, in ms. */
  sync: Spread;
  /** Event-loop delay over the case (worst round), in ms. */
  delay: Spread;
  /** Wall time per command, spawn to exit, in ms. */
  latencyP50: number;
}

export interface HeapReport {
  heapMiB: number;
  rssMiB: number;
  allocSeconds: number;
  cases: Record<string, HeapCase>;
}
