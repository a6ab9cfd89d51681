// Per-session resource limits: a cgroup per session (v2 where a delegated subtree is available, v1 pids, memory and
// cpu hierarchies where this process may write them), else a process-count rlimit the runner applies per command.
// Only startup (finding and making this runtime's subtree) and close touch cgroupfs from here, synchronously; a session's
// own cgroups are made and limited by its first command's runner, and ended (killed and removed) by a supervisor
// worker (see cgroup-sweep.ts).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConfinementPlan } from './wire/plan.js';
import { leaveBesideCommands, placeBesideCommands } from './server-placement.js';

export interface ResourceLimits {
  /** Processes (threads included) one session may run at once; null for no limit. */
  processes: number | null;
  /** Memory one session's commands may use together, in bytes (cgroups only); null for no limit. */
  memoryBytes: number | null;
  /** Relative CPU weight 1-10000 (100 is the kernel's default; cpu.shares on v1); null to leave it. Any weight
   * also makes CPU time shared between sessions, not between their processes. */
  cpuWeight: number | null;
  /** CPU weight of all this runtime's commands together, 1-10000 (cpu.weight of the runtime's cgroup; cpu.shares on
   * v1): on v1, against this process, which weighs 1000 beside them (server-placement.ts); on v2, against the host's
   * other work and this process's own threads. null leaves commands where they start. */
  commandsCpuWeight: number | null;
}

/** Several runtimes may live in one process: each gets its own cgroup subtree. */
let instances = 0;
const subtreeName = () => `shellring-${process.pid}-${++instances}`;

type Hierarchy = {
  version: 1 | 2;
  controller: 'pids' | 'memory' | 'cpu' | 'unified';
  base: string;
  /** Commands join the runtime's cgroup itself, not one per session (the v1 cpu hierarchy without a session weight). */
  shared?: boolean;
  /** The base sits in the pair this process shares with its commands (server-placement.ts). */
  placed?: boolean;
};

/** How limits are enforced on this host: one cgroup per session, or only the runner's per-command rlimit. */
export type Containment = 'cgroup-v2' | 'cgroup-v1' | 'rlimit';

/** Kills what the cgroups hold and removes them, off this thread; settles once done (never rejects). */
export type ClearCgroups = (dirs: string[]) => Promise<void>;

export class SessionCgroups {
  readonly containment: Containment;
  readonly #limits: ResourceLimits;
  readonly #hierarchies: Hierarchy[];
  readonly #sessions = new Map<string, string[]>();
  readonly #controls: string[];
  readonly #clear: ClearCgroups;
  /** This runtime holds a share of the pair this process and its commands live in, until it closes. */
  #placed: boolean;
  #next = 1;

  constructor(limits: ResourceLimits, clear: ClearCgroups) {
    this.#limits = limits;
    this.#clear = clear;
    const wanted = limits.processes !== null || limits.memoryBytes !== null || limits.cpuWeight !== null || limits.commandsCpuWeight !== null;
    this.#hierarchies = wanted ? (delegatedV2(limits) ?? writableV1(limits) ?? []) : [];
    const first = this.#hierarchies[0];
    this.containment = first ? (first.version === 2 ? 'cgroup-v2' : 'cgroup-v1') : 'rlimit';
    this.#controls = this.#controlsFor();
    this.#placed = this.#hierarchies.some((h) => h.placed);
  }

  /** The runner plan's limits for one command of `sessionId`: its session's cgroups and their limits (the runner
   * makes them), or a per-command process limit. Touches no file. */
  planFor(sessionId: string | undefined): Pick<ConfinementPlan, 'cgroups' | 'cgroupLimits' | 'nproc'> {
    if (!this.#hierarchies.length) return { cgroups: [], cgroupLimits: [], nproc: this.#limits.processes };
    const key = sessionId ?? '';
    let dirs = this.#sessions.get(key);
    if (!dirs) {
      const name = `session-${this.#next++}`;
      dirs = this.#hierarchies.filter((h) => !h.shared).map((h) => join(h.base, name));
      this.#sessions.set(key, dirs);
    }
    const shared = this.#hierarchies.filter((h) => h.shared).map((h) => h.base);
    // Without a pids hierarchy (only the cpu one could be made) the process count falls back to the rlimit.
    const counted = this.#hierarchies.some((h) => h.controller === 'pids' || h.controller === 'unified');
    return { cgroups: [...dirs, ...shared], cgroupLimits: this.#controls, nproc: counted ? null : this.#limits.processes };
  }

  /** Kills whatever the session still runs in its cgroups and removes them (a worker does both). */
  async closeSession(sessionId: string | undefined): Promise<void> {
    const dirs = this.#sessions.get(sessionId ?? '');
    this.#sessions.delete(sessionId ?? '');
    if (dirs) await this.#clear(dirs);
  }

  /** Every session's cgroups, then this runtime's subtree: before the workers stop, since they do the work. */
  async close(): Promise<void> {
    const dirs = [...this.#sessions.values()].flat();
    this.#sessions.clear();
    if (dirs.length) await this.#clear(dirs);
    if (this.#hierarchies.length) await this.#clear(this.#hierarchies.map((h) => h.base));
    if (this.#placed) leaveBesideCommands();
    this.#placed = false;
  }

  /** Control-file writes for every session cgroup, in order; each lands in the hierarchy that has the file.
   * `?`: where the kernel accounts swap, so its absence costs nothing. */
  #controlsFor(): string[] {
    const { processes, memoryBytes, cpuWeight } = this.#limits;
    const v2 = this.containment === 'cgroup-v2';
    const controls: string[] = [];
    if (processes !== null) controls.push(`pids.max=${processes}`);
    if (memoryBytes !== null && v2) {
      // No swap beyond the limit, or memory.max would only slow a runaway command down.
      controls.push(`memory.max=${memoryBytes}`, '?memory.swap.max=0');
    }
    if (memoryBytes !== null && !v2) {
      // Memory plus swap, where swap is accounted: the same cap, so a runaway command is stopped, not swapped.
      controls.push(`memory.limit_in_bytes=${memoryBytes}`, `?memory.memsw.limit_in_bytes=${memoryBytes}`);
    }
    if (cpuWeight !== null) controls.push(v2 ? `cpu.weight=${cpuWeight}` : `cpu.shares=${shares(cpuWeight)}`);
    return controls;
  }
}

/** The cgroup2 directory this process lives in, when its children can get the controllers we need. Startup only
 * (the SessionCgroups constructor), like writableV1 and the reads below. */
function delegatedV2(limits: ResourceLimits): Hierarchy[] | undefined {
  const mount = mountsOf('cgroup2')[0];
  const own = cgroupPaths().get('');
  if (!mount || own === undefined) return undefined;
  const dir = join(mount.point, own);
  // Per session: what each session's cgroup limits. The runtime's cgroup needs cpu for the commands' weight too.
  const perSession = [
    ...(limits.processes !== null ? ['pids'] : []),
    ...(limits.memoryBytes !== null ? ['memory'] : []),
    ...(limits.cpuWeight !== null ? ['cpu'] : []),
  ];
  try {
    const available = read(join(dir, 'cgroup.controllers')).split(/\s+/);
    if (!perSession.every((c) => available.includes(c))) return undefined;
    // The commands' weight is best effort: without the cpu controller the other limits still hold.
    const weighted = limits.commandsCpuWeight !== null && available.includes('cpu');
    const needed = [...new Set([...perSession, ...(weighted ? ['cpu'] : [])])];
    if (!needed.length) return undefined;
    const enabled = read(join(dir, 'cgroup.subtree_control')).split(/\s+/);
    const missing = needed.filter((c) => !enabled.includes(c));
    // The subtree must be whole before the first runner makes a session's cgroup in it. Fails with EBUSY while this
    // cgroup holds processes itself: then the subtree is not delegated for our use.
    // Startup only (the SessionCgroups constructor, once per runtime, before any command): no call waits on it.
    if (missing.length) writeFileSync(join(dir, 'cgroup.subtree_control'), missing.map((c) => `+${c}`).join(' '));
    const base = join(dir, subtreeName());
    // Startup only, as above: the runtime's own subtree, made once before any session's cgroup can go in it.
    mkdirSync(base);
    // Startup only, as above: the commands' weight holds from the first command on.
    if (weighted) writeFileSync(join(base, 'cpu.weight'), String(limits.commandsCpuWeight));
    // Sessions get the cpu controller only for a session weight: without one, CPU stays shared between processes.
    // Startup only, as above.
    if (perSession.length) writeFileSync(join(base, 'cgroup.subtree_control'), perSession.map((c) => `+${c}`).join(' '));
    return [{ version: 2, controller: 'unified', base }];
  } catch {
    return undefined;
  }
}

/** v1 pids (and memory, cpu, when limited) hierarchies in which this process may create cgroups. */
function writableV1(limits: ResourceLimits): Hierarchy[] | undefined {
  const paths = cgroupPaths();
  const controllers: ('pids' | 'memory' | 'cpu')[] = [];
  if (limits.processes !== null) controllers.push('pids');
  if (limits.memoryBytes !== null) controllers.push('memory');
  if (limits.cpuWeight !== null || limits.commandsCpuWeight !== null) controllers.push('cpu');
  const made: Hierarchy[] = [];
  const name = subtreeName();
  for (const controller of controllers) {
    const mount = mountsOf('cgroup').find((m) => m.options.split(',').includes(controller));
    const own = paths.get(controller);
    if (!mount || own === undefined) continue;
    // Weighted commands go beside this process, in the pair it shares with them (server-placement.ts).
    const placed = controller === 'cpu' && limits.commandsCpuWeight !== null ? placeBesideCommands(join(mount.point, own)) : undefined;
    const base = join(placed ?? join(mount.point, own), name);
    try {
      // The subtree must exist before the first runner makes a session's cgroup in it.
      // Startup only (the SessionCgroups constructor, once per runtime, before any command): no call waits on it.
      mkdirSync(base);
      // Startup only, as above: the commands' weight holds from the first command on.
      if (controller === 'cpu' && limits.commandsCpuWeight !== null) writeFileSync(join(base, 'cpu.shares'), String(shares(limits.commandsCpuWeight)));
      made.push({ version: 1, controller, base, shared: controller === 'cpu' && limits.cpuWeight === null, placed: placed !== undefined });
    } catch {
      // Not ours to write (an unprivileged user): the runner's rlimit applies instead.
      if (placed) leaveBesideCommands();
    }
  }
  return made.length ? made : undefined;
}

/** v1 shares for a v2 weight: 1024 is the default, as weight 100 is on v2. */
const shares = (weight: number): number => Math.max(2, Math.round((weight * 1024) / 100));

/** `controller -> path` from /proc/self/cgroup; the v2 entry is keyed ''. */
function cgroupPaths(): Map<string, string> {
  const paths = new Map<string, string>();
  try {
    for (const line of read('/proc/self/cgroup').split('\n')) {
      const [, controllers, path] = line.split(':');
      if (path === undefined) continue;
      for (const c of controllers!.split(',')) paths.set(c, path);
    }
  } catch {
    // No /proc: no cgroups.
  }
  return paths;
}

function mountsOf(fstype: string): { point: string; options: string }[] {
  try {
    return read('/proc/self/mountinfo')
      .split('\n')
      .map((line) => line.split(' - '))
      .filter(([, tail]) => tail?.split(' ')[0] === fstype)
      .map(([head, tail]) => ({ point: head!.split(' ')[4]!, options: tail!.split(' ')[2] ?? '' }));
  } catch {
    return [];
  }
}

/** Startup only (the SessionCgroups constructor, once per runtime): the probes of cgroupfs and the mount table that
 * decide the containment before any command runs, so no call ever waits on them. */
function read(path: string): string {
  // Startup only, as said above.
  return readFileSync(path, 'utf8').trim();
}
