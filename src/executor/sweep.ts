// The host-side sweep for a runner that cannot clean up itself (stopped, or killed): finds its tree and the
// command's process group and session in /proc, and SIGKILLs them (what a command left running its runner counts).
// Synchronous reads of /proc (a kernel table, never a disk), in the supervisor workers only: they own every signal
// and sweep of the commands they supervise.
import { readdirSync } from 'node:fs';
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

export function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // ESRCH: already gone.
  }
}
