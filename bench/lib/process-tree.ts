// This process's descendants read from Linux /proc: how many, their memory (RSS and PSS), their CPU time, and this
// process's own threads, memory and CPU time, for suites that count what idle sandboxes cost.
import * as fs from 'node:fs';
import { childrenOf } from './proc-cpu.js';

/** Kernel clock ticks per second (USER_HZ), 100 on every Linux architecture in use. */
const TICKS = 100;

export interface TreeReading {
  /** Live descendants of this process. */
  processes: number;
  /** Their summed resident and proportional set sizes, in bytes. */
  rss: number;
  pss: number;
  /** CPU time of this process and its live descendants, in ms. */
  cpuMs: number;
  /** This process's threads and resident set size. */
  threads: number;
  hostRss: number;
}

/** Every live descendant of this process (a zombie is not: a worker thread's ended fork server stays one, since
 * only that thread's loop would have reaped it). */
export function descendants(): number[] {
  const out: number[] = [];
  const queue = [process.pid];
  for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
    for (const child of childrenOf(pid)) {
      if (zombie(child)) continue;
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

function zombie(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] === 'Z';
  } catch {
    return true;
  }
}

/** A process's command line, spaces between its arguments ('' once it has ended). */
export function cmdline(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

function field(path: string, name: string): number {
  try {
    const line = fs.readFileSync(path, 'utf8').split('\n').find((l) => l.startsWith(`${name}:`));
    return line ? Number(line.slice(name.length + 1).trim().split(/\s+/)[0]) : 0;
  } catch {
    return 0;
  }
}

function cpuMs(pid: number | 'self'): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
  } catch {
    return 0;
  }
}

/** CPU time of this process's live descendants, in ms (this process's own: process.cpuUsage()). */
export function descendantsCpuMs(): number {
  return descendants().reduce((sum, pid) => sum + cpuMs(pid), 0);
}

export function readTree(): TreeReading {
  const pids = descendants();
  let rss = 0;
  let pss = 0;
  let cpu = cpuMs('self');
  for (const pid of pids) {
    rss += field(`/proc/${pid}/status`, 'VmRSS') * 1024;
    pss += field(`/proc/${pid}/smaps_rollup`, 'Pss') * 1024;
    cpu += cpuMs(pid);
  }
  return {
    processes: pids.length,
    rss,
    pss,
    cpuMs: cpu,
    threads: field('/proc/self/status', 'Threads'),
    hostRss: field('/proc/self/status', 'VmRSS') * 1024,
  };
}
