import type { LiveCommand } from './protocol.js';
import { signal } from './sweep.js';

// Every live command of every runtime in this process, so that a host exit can kill them all synchronously.

export type { LiveCommand };

const live = new Set<LiveCommand>();
let hooked = false;

/** Registers a command until the returned function is called. */
export function track(command: LiveCommand): () => void {
  if (!hooked) {
    hooked = true;
    // 'exit' handlers must be synchronous; process.kill is.
    process.on('exit', () => killNow(live));
  }
  live.add(command);
  return () => live.delete(command);
}

/** Kills commands now, synchronously: the group (bash and what stayed in it), then the runner, which SIGKILLs
 * every other descendant (those that left the group) before it exits. SIGCONT first: a command may have stopped
 * its runner, and a stopped runner would hold its TERM. */
export function killNow(commands: Iterable<LiveCommand>): void {
  for (const command of commands) {
    signal(-command.pgid, 'SIGKILL');
    signal(command.runnerPid, 'SIGCONT');
    signal(command.runnerPid, 'SIGTERM');
  }
}
