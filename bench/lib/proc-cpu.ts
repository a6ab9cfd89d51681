// CPU time of other processes from Linux /proc: used to count the executor's runner processes, which are
// children of the host but never waited for by the host's own JavaScript.
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
      ownCpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / ticks(),
    };
  } catch {
    return undefined;
  }
}

/** Pids of this process's live children named `name` (a /proc comm: at most 15 characters). */
function childrenNamed(name: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = readStat(pid);
    if (stat?.ppid === process.pid && stat.name === name) pids.push(pid);
  }
  return pids;
}

/**
 * Follows this process's children named `name` while started: each one's own CPU as last seen. A child's time
 * after its last sighting is missed, so the total is a floor; sampling every `everyMs` keeps that gap short.
 * The sampler's own reads run on this process and count in its CPU; /proc is scanned only until `expect`
 * children were found, after that only their stat files are read.
 */
export class ChildCpuSampler {
  readonly #name: string;
  readonly #expect: number;
  readonly #seen = new Map<number, number>();
  readonly #timer: NodeJS.Timeout;

  constructor(name: string, expect = 1, everyMs = 20) {
    this.#name = name.slice(0, 15);
    this.#expect = expect;
    ticks();
    this.#timer = setInterval(() => this.sample(), everyMs);
  }

  sample(): void {
    if (this.#seen.size < this.#expect) for (const pid of childrenNamed(this.#name)) if (!this.#seen.has(pid)) this.#seen.set(pid, 0);
    for (const [pid, last] of this.#seen) this.#seen.set(pid, readStat(pid)?.ownCpuMs ?? last);
  }

  /** Stops sampling; returns the CPU ms of every child seen, and how many there were. */
  stop(): { cpuMs: number; processes: number } {
    clearInterval(this.#timer);
    let cpuMs = 0;
    for (const ms of this.#seen.values()) cpuMs += ms;
    return { cpuMs, processes: this.#seen.size };
  }
}
