// This process beside its commands in the v1 cpu hierarchy: one cgroup pair per process, shared by its runtimes.
// The pair weighs against the host's other work as the process and its commands did apart (two ordinary
// processes); inside it the process weighs ten, so all of a runtime's commands together (one, by default) cannot keep
// the event loop and the capture threads waiting for a CPU, and idle CPU is still the commands'. Startup and close
// only: no call waits on these synchronous writes.
import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Shares of the pair: two ordinary processes, this one and its commands, as they weighed apart. */
const PAIR_SHARES = 2048;
/** Shares of this process inside the pair: ten ordinary processes, against its commands' default 1024. */
const SERVER_SHARES = 10240;

interface Placement {
  pair: string;
  server: string;
  /** Where this process was, and goes back to when the last runtime closes. */
  from: string;
  users: number;
}

let placement: Placement | undefined;

/** The pair a runtime's commands' cgroup goes in, this process moved into its `server` child; undefined when the
 * process may not move (e.g. a real-time task where cgroups get no real-time runtime): commands then go in `own`. */
export function placeBesideCommands(own: string): string | undefined {
  if (placement) {
    placement.users++;
    return placement.pair;
  }
  removeLeftPairs(own);
  const pair = join(own, `shellring-${process.pid}`);
  const server = join(pair, 'server');
  try {
    // Startup only (the SessionCgroups constructor): the pair, its weights, then the move of the whole process.
    mkdirSync(server, { recursive: true });
    // Startup only, as above.
    writeFileSync(join(pair, 'cpu.shares'), String(PAIR_SHARES));
    // Startup only, as above.
    writeFileSync(join(server, 'cpu.shares'), String(SERVER_SHARES));
    // Startup only, as above. Threads and children started later are born in it.
    writeFileSync(join(server, 'cgroup.procs'), String(process.pid));
  } catch {
    removeTree(pair);
    return undefined;
  }
  placement = { pair, server, from: own, users: 1 };
  return pair;
}

/** One runtime is done with the pair (its commands' cgroup already removed). The last one moves this process, and
 * whatever it started that is still in the server's cgroup, back where it was, and removes the pair. */
export function leaveBesideCommands(): void {
  if (!placement || --placement.users > 0) return;
  const { pair, server, from } = placement;
  placement = undefined;
  let pids: string[] = [];
  try {
    // Close only (the last runtime's SessionCgroups.close): the process and its own children go back.
    pids = readFileSync(join(server, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean);
  } catch {
    // The pair is already gone.
  }
  for (const pid of pids) {
    try {
      // Close only, as above.
      writeFileSync(join(from, 'cgroup.procs'), pid);
    } catch {
      // Exited meanwhile.
    }
  }
  removeTree(pair);
}

/** Pairs left by processes that ended without closing their runtimes. A pair whose `server` holds no process has no
 * owner: a live one sits in it until its last runtime closes. Only empty cgroups go (rmdir refuses any other), so a
 * command still running in one is never touched. Startup only, as above. */
function removeLeftPairs(own: string): void {
  let names: string[] = [];
  try {
    // Startup only, as above.
    names = readdirSync(own).filter((name) => /^shellring-\d+$/.test(name));
  } catch {
    return;
  }
  for (const name of names) {
    const pair = join(own, name);
    try {
      // Startup only, as above.
      if (readFileSync(join(pair, 'server', 'cgroup.procs'), 'utf8').trim() !== '') continue;
    } catch {
      // No server: an owner that never got as far as moving in.
    }
    removeTree(pair);
  }
}

/** Removes a cgroup's empty descendants, then the cgroup, as far as rmdir allows: one not made, or holding a task
 * that raced in, stays, and an empty cgroup left behind costs nothing. */
function removeTree(dir: string): void {
  try {
    // Startup or close only, as above.
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) removeTree(join(dir, entry.name));
    // Startup or close only, as above.
    rmdirSync(dir);
  } catch {
    // See above.
  }
}
