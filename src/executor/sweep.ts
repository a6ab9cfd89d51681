// The host-side sweep for a runner that cannot clean up itself (stopped, or killed): finds its tree and the
// command's process group and session in /proc, and SIGKILLs them; and the count of what a command left running.
// Synchronous reads of /proc (a kernel table, never a disk), in the supervisor workers only: they own every signal
// and sweep of the commands they supervise.
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { readProcText } from './proc-text.js';

interface Entry {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
}

function table(): Entry[] {
  const entries: Entry[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readProcText(`/proc/${pid}/stat`);
      // The command name may hold spaces and parentheses; the fields after the last ')' are fixed.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      entries.push({ pid, ppid: Number(fields[1]), pgid: Number(fields[2]), sid: Number(fields[3]) });
    } catch {
      // Ended while we looked.
    }
  }
  return entries;
}

/** Live processes below `root` (by parent links), and those in the command's group or session `group`. */
export function sweepTargets(root: number | undefined, group: number | undefined): number[] {
  const entries = table();
  const children = new Map<number, number[]>();
  for (const entry of entries) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry.pid]);
  const found = new Set<number>();
  const queue = root === undefined ? [] : [root];
  while (queue.length) {
    for (const kid of children.get(queue.pop()!) ?? []) {
      if (found.has(kid)) continue;
      found.add(kid);
      queue.push(kid);
    }
  }
  if (group !== undefined && group > 1) {
    for (const entry of entries) if (entry.pgid === group || entry.sid === group) found.add(entry.pid);
  }
  found.delete(process.pid);
  return [...found];
}

/** `runnerPid` only while the runner is not yet reaped (afterwards its pid may name another process).
 * SIGKILLs the runner's descendants first (while it lives they stay its children, so none escapes to init), then
 * the runner, in bounded rounds: a descendant may fork while we look, and a killed one lingers until it dies. */
export async function sweep(runnerPid: number | undefined, group: number | undefined): Promise<void> {
  // Tests of the layers beneath (the grace KILL, the runner's own tree kill, the fork server's) turn this one off,
  // so that it cannot stand in for them.
  if (process.env.SHELLRING_TEST_NO_HOST_SWEEP === '1') return;
  for (let round = 0; round < 40; round += 1) {
    const targets = sweepTargets(runnerPid, group);
    if (targets.length === 0) break;
    for (const pid of targets) signal(pid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  if (runnerPid !== undefined) signal(runnerPid, 'SIGKILL');
  for (const pid of sweepTargets(runnerPid, group)) signal(pid, 'SIGKILL');
}

/** How many live processes are below `root` that outlive the command (with `condemnedGroup`, a killed command's
 * process group, not counting its members: they end at the grace, some may be dying as we look): walks each task's `children` file, so it
 * costs what the tree holds, not a scan of every process on the host; where those files are absent, the full scan.
 * The sandbox's own processes do not count: bubblewrap itself, and whatever runs in the pid namespace it made,
 * which the kernel kills when that namespace's first process ends (under load some may not have died yet). */
export function countDescendants(root: number, condemnedGroup?: number): number {
  const found = descendants(root);
  if (found === undefined) return sweepTargets(root, undefined).length;
  const home = pidNamespace(root);
  let live = 0;
  for (const pid of found) {
    if (!alive(pid) || pidNamespace(pid) !== home || commandName(pid) === 'bwrap') continue;
    // A killed command's group gets SIGKILL at the grace whatever it does with the TERM: nothing in it is left.
    if (condemnedGroup !== undefined && groupOf(pid) === condemnedGroup) continue;
    live += 1;
  }
  return live;
}

/** Every pid below `root` by parent links (live or not); undefined when /proc has no `children` files for it. */
export function descendants(root: number): Set<number> | undefined {
  const found = new Set<number>();
  const queue = [root];
  while (queue.length) {
    const pid = queue.pop()!;
    const kids = childrenOf(pid);
    if (kids === undefined) return pid === root ? undefined : found;
    for (const kid of kids) {
      if (found.has(kid)) continue;
      found.add(kid);
      queue.push(kid);
    }
  }
  return found;
}

/** The children of every thread of `pid`; undefined when /proc has no `children` files for it. */
function childrenOf(pid: number): number[] | undefined {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const kids: number[] = [];
  let readable = false;
  for (const task of tasks) {
    try {
      const text = readProcText(`/proc/${pid}/task/${task}/children`);
      readable = true;
      for (const word of text.split(' ')) if (word.trim() !== '') kids.push(Number(word));
    } catch (error) {
      // The thread is ending (ESRCH: its file exists, its task is going), or it ended, or the kernel has no children
      // files.
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') readable = true;
    }
  }
  // A process reaped while we looked has no children: only a live one without the files calls for the full scan
  // (which reads every process on the host, where this reads one tree).
  if (!readable && tasks.length > 0 && !existsSync(`/proc/${pid}/task`)) return kids;
  return readable || tasks.length === 0 ? kids : undefined;
}

/** Not ended: present in /proc and not a zombie waiting to be reaped. */
function pidNamespace(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return undefined;
  }
}

function commandName(pid: number): string | undefined {
  try {
    return readProcText(`/proc/${pid}/comm`).trimEnd();
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    const stat = readProcText(`/proc/${pid}/stat`);
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

function groupOf(pid: number): number | undefined {
  try {
    const stat = readProcText(`/proc/${pid}/stat`);
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return undefined;
  }
}

export function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // ESRCH: already gone.
  }
}
