// The main thread's scheduler accounting (Linux /proc schedstat): time on a CPU and time spent runnable but
// waiting for one, which tells a loop blocked by its own work from a loop starved by other threads.
import * as fs from 'node:fs';

export interface Sched {
  cpuMs: number;
  /** Runnable, waiting on a run queue. */
  waitMs: number;
  /** Times the thread was put on a CPU: each wake of an idle loop (a timer, a message, an I/O event) is one. */
  slices: number;
}

/** The main thread's totals so far (its tid is the pid), or null where schedstat is missing. */
export function mainThreadSched(): Sched | null {
  try {
    const [cpu, wait, slices] = fs.readFileSync(`/proc/${process.pid}/task/${process.pid}/schedstat`, 'utf8').trim().split(' ');
    return { cpuMs: Number(cpu) / 1e6, waitMs: Number(wait) / 1e6, slices: Number(slices) };
  } catch {
    return null;
  }
}

export function schedSince(before: Sched | null): Sched | null {
  const now = mainThreadSched();
  return before === null || now === null ? null : { cpuMs: now.cpuMs - before.cpuMs, waitMs: now.waitMs - before.waitMs, slices: now.slices - before.slices };
}
