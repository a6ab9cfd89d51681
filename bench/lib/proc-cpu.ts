// CPU time of other processes from Linux /proc: used to count the executor's runner processes (its fork servers,
// children of the host, and the runners they fork), which the host's own JavaScript never waits for.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';

let clockTicks: number | undefined;

function ticks(): number {
  clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return clockTicks;
}

interface Stat {
  name: string;
  ppid: number;
  zombie: boolean;
  /** utime + stime of the process itself (not of its reaped children), in ms. */
  ownCpuMs: number;
}

function readStat(pid: number): Stat | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    // After the name's closing parenthesis: state, ppid, ..., utime and stime at indexes 11 and 12.
    const fields = stat.slice(close + 2).split(' ');
    return {
      name: stat.slice(stat.indexOf('(') + 1, close),
      ppid: Number(fields[1]),
      zombie: fields[0] === 'Z',
      ownCpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / ticks(),
    };
  } catch {
    return undefined;
  }
}

/** Live processes named `name` (a /proc comm: at most 15 characters) whose parent is this process or another of
 * them, each with its parent: the fork servers and the runners they forked. Walks the `children` files, so a scan
 * costs a few reads, not one per process on the machine. */
export function descendantsNamed(name: string): { pid: number; ppid: number }[] {
  const found: { pid: number; ppid: number }[] = [];
  const queue = [process.pid];
  for (let parent = queue.pop(); parent !== undefined; parent = queue.pop()) {
    for (const pid of childrenOf(parent)) {
      const stat = readStat(pid);
      if (stat?.name !== name || stat.zombie) continue;
      found.push({ pid, ppid: parent });
      queue.push(pid);
    }
  }
  return found;
}

/** The children of every thread of `pid`. */
export function childrenOf(pid: number): number[] {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((task) => fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

/**
 * Follows this process's descendants named `name` while started: each one's own CPU since the sampler started (or
 * since it appeared), as last seen. A process's time after its last sighting is missed, so the total is a floor;
 * sampling every `everyMs` keeps that gap short. The sampler's own reads run on this process and count in its CPU.
 */
export class ChildCpuSampler {
  readonly #name: string;
  /** pid -> [CPU ms at first sighting, CPU ms last seen]; processes already there at the start count from then. */
  readonly #seen = new Map<number, [number, number]>();
  readonly #timer: NodeJS.Timeout;
  #started = false;

  constructor(name: string, everyMs = 20) {
    this.#name = name.slice(0, 15);
    ticks();
    this.sample();
    this.#started = true;
    this.#timer = setInterval(() => this.sample(), everyMs);
  }

  sample(): void {
    for (const { pid } of descendantsNamed(this.#name)) {
      if (!this.#seen.has(pid)) this.#seen.set(pid, [this.#started ? 0 : (readStat(pid)?.ownCpuMs ?? 0), 0]);
    }
    for (const [pid, [first, last]] of this.#seen) {
      // A runner's child carries the runner's name until it execs the command (dd, say): from then on its time is
      // the command's, not the runner's.
      const stat = readStat(pid);
      if (stat?.name === this.#name) this.#seen.set(pid, [first, stat.ownCpuMs]);
      else this.#seen.set(pid, [first, last]);
    }
  }

  /** Stops sampling; returns the CPU ms of every process seen, and how many there were. */
  stop(): { cpuMs: number; processes: number } {
    clearInterval(this.#timer);
    let cpuMs = 0;
    for (const [first, last] of this.#seen.values()) cpuMs += Math.max(0, last - first);
    return { cpuMs, processes: this.#seen.size };
  }
}
