// Whether the machine is quiet enough to start a suite: its 1-minute load average against a limit, waited for a while.
import { readFileSync } from 'node:fs';
import * as os from 'node:os';

/**
 * The 1-minute load at which a suite is not started: 1.5 times the cores. At the cores' number every core already has
 * a runnable task on average; half a core's worth of other work on each beyond that (the runner's own process counts
 * too) means a suite's processes wait for a core a third of the time, which moves its latency percentiles and
 * throughput ratios more than the run-to-run spread a quiet machine shows. The average also decays slowly (a minute
 * to fall by two thirds), so a machine that just went quiet still reads high for a while: the runner waits.
 */
export function loadLimit(cores: number): number {
  return 1.5 * cores;
}

/** The 1-minute load average now; SHELLRING_BENCH_LOADAVG names a file read in place of /proc/loadavg (tests). */
export function loadNow(): number {
  const file = process.env.SHELLRING_BENCH_LOADAVG;
  const load = file ? Number(readFileSync(file, 'utf8').split(/\s+/)[0]) : os.loadavg()[0]!;
  return Math.round(load * 100) / 100;
}

export interface Gate {
  limit: number;
  /** How long to wait for the load to come down before refusing. */
  waitMs: number;
  readLoad?: () => number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** Told once, when the load is above the limit at first. */
  onWait?: (load: number) => void;
}

/** Waits until the load is at most the limit (quiet, with the load then) or the wait is over (not quiet). */
export async function awaitQuiet(gate: Gate): Promise<{ quiet: boolean; load: number; waitedMs: number }> {
  const { readLoad = loadNow, now = Date.now } = gate;
  const sleep = gate.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const start = now();
  for (let told = false; ; told = true) {
    const load = readLoad();
    const waitedMs = now() - start;
    if (load <= gate.limit) return { quiet: true, load, waitedMs };
    if (waitedMs >= gate.waitMs) return { quiet: false, load, waitedMs };
    if (!told) gate.onWait?.(load);
    await sleep(Math.min(5_000, gate.waitMs - waitedMs));
  }
}
