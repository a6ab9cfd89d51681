// Plain timed loops for work tinybench does not fit (1 GiB streams, child processes): wall and CPU time.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { performance } from 'node:perf_hooks';

export interface Timing {
  wallMs: number;
  /** CPU time of this process (every thread), or of the waited-for children for `timeChild`. */
  cpuMs: number | null;
}

/** Times a synchronous body: wall clock and this process's user+system CPU. */
export function timeSync(body: () => void): Timing {
  const cpu = process.cpuUsage();
  const start = performance.now();
  body();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

let clockTicks: number | undefined;

/** CPU time of waited-for children so far (Linux /proc: cutime + cstime), or null where unavailable. */
function childrenCpuMs(): number | null {
  try {
    // Asked first: getconf is itself a child, and must not land between the two readings of a measurement.
    clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    // The command name (field 2) may hold spaces; after its closing parenthesis the fields are plain, and
    // cutime, cstime (fields 16, 17) sit at indexes 13, 14.
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / clockTicks;
  } catch {
    return null;
  }
}

/** Times a synchronous child process run (spawnSync and the like): wall clock and the child's CPU. */
export function timeChild(body: () => void): Timing {
  const cpuBefore = childrenCpuMs();
  const start = performance.now();
  body();
  const wallMs = performance.now() - start;
  const cpuAfter = childrenCpuMs();
  return { wallMs, cpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore };
}

/** Wall time of each of `times` sequential awaits of `once`, in ms. */
export async function sequentialMs(once: () => Promise<unknown>, times: number): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    await once();
    ms.push(performance.now() - t0);
  }
  return ms;
}
