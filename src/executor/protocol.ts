// The plain-data messages between the main thread and the supervisor workers (nothing here survives as a class).
import type { MessagePort } from 'node:worker_threads';
import type { RunnerErrorCode } from '../contract/index.js';
import type { AtTimeout, KillCause } from './wire/control.js';
import type { ConfinementPlan } from './wire/plan.js';
import type { WaitingFinding } from './waiting.js';
import type { TermScreen, TermSize } from './wire/term.js';

export type { AtTimeout, KillCause };

export interface SupervisorTask {
  captureId: number;
  command: string;
  cwd: string;
  env: Record<string, string>;
  stdin?: string;
  /** The command's one deadline, counted by the supervisor from the start of bash. */
  timeoutMs: number;
  atTimeout: AtTimeout;
  graceMs: number;
  drainMs: number;
  runnerPath: string;
  /** How shellring-runner confines the command (with its session's cgroups and limits). */
  plan: ConfinementPlan;
  /** The session the command belongs to (the SSH executor runs a session's commands on its host). */
  sessionId?: string;
  /** The socket of the session sandbox whose fork server forks this command's runner (else the worker's own). */
  serverSocket?: number;
  /** Run on a terminal of this size, which the runner opens. */
  terminal?: TermSize;
}

export type SupervisorResult =
  | {
      kind: 'ended';
      exitCode: number | null;
      signal: string | null;
      cause: KillCause | null;
      enforcement: string;
      /** Processes the command left running under its runner once bash ended (they end with the runner). */
      leftover: number;
      /** Its runner was killed before the command ended (a command may kill its own): what it printed until then is
       * kept, how it ended is unknown. */
      supervisionEnded?: true;
      /** Processes bash left running that its runner ended with it (a confined command's; absent when none). */
      ended?: number;
    }
  /** `runnerFailed`: the runner reported its own failure (the command did not run), as opposed to a spawn error;
   * `code`: which, as the runner said. */
  | { kind: 'failed'; error: string; runnerFailed: boolean; code?: RunnerErrorCode };

/** bash's process group and its runner, while they run. */
export interface LiveCommand {
  pgid: number;
  runnerPid: number;
}

/** The one Piscina task that attaches a host to a worker: the worker supervises every command sent on `port`. */
export interface AttachTask {
  port: MessagePort;
}

/** Main thread → worker host, on the host's port. */
export type HostRequest =
  | { type: 'start'; id: number; task: SupervisorTask }
  | { type: 'kill'; id: number; cause: KillCause }
  /** Drops the lifeline: the runner kills every descendant left and exits. */
  | { type: 'release'; id: number }
  /** Ends the command at once (its session or the executor closes): KILL, the lifeline dropped, a sweep if need be. */
  | { type: 'end'; id: number }
  /** A line for the command's runner (wire/control.ts: input, a new size, the screen asked for, an interrupt). */
  | { type: 'control'; id: number; line: string }
  /** Kills what these cgroups hold and removes them (a closing session's); `gone` with this id says it is done. */
  | { type: 'clear-cgroups'; id: number; dirs: string[] }
  /** Every host of the pool is attached: the attach task may return. */
  | { type: 'go' };

/** Worker host → main thread. */
export type HostEvent =
  | { type: 'ready' }
  /** bash has ended and its output drained, or the command failed to start. `gone`: nothing of the command is left
   * either (as a `gone` event would say), told in the same message when the runner ended first. */
  | { type: 'result'; id: number; result: SupervisorResult; gone?: true }
  /** What the silent command waits for (null: no longer known to wait), as the supervisor last found it. */
  | { type: 'waiting'; id: number; finding: WaitingFinding | null }
  /** The command reached its deadline still running, and `atTimeout` said to report it, not kill it. */
  | { type: 'deadline'; id: number }
  /** A terminal job's screen, as its runner answered a `screen` line. */
  | { type: 'screen'; id: number; screen: TermScreen }
  /** The runner and every descendant it reaped have ended: nothing of this command is left. */
  | { type: 'gone'; id: number };
