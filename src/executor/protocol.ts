// The plain-data messages between the main thread and the supervisor workers (nothing here survives as a class).
import type { MessagePort } from 'node:worker_threads';

export type KillCause = 'timeout' | 'abort' | 'kill';

export interface SupervisorTask {
  captureId: number;
  command: string;
  cwd: string;
  env: Record<string, string>;
  stdin?: string;
  /** null: no deadline (background processes). */
  timeoutMs: number | null;
  graceMs: number;
  drainMs: number;
  runnerPath: string;
  /** Confinement flags for shellring-runner, placed before `-c <command>`. */
  runnerArgs: string[];
  port: MessagePort;
}

export type SupervisorResult =
  | { kind: 'ended'; exitCode: number | null; signal: string | null; cause: KillCause | null; enforcement: string }
  /** `runnerFailed`: the runner reported its own failure (the command did not run), as opposed to a spawn error. */
  | { kind: 'failed'; error: string; runnerFailed: boolean };

/** What the main thread may ask of a running task, through its comlink-wrapped port. */
export interface SupervisorControl {
  /** Resolves with bash's process group once it runs, or null when it never started. */
  spawned(): Promise<{ pgid: number; runnerPid: number } | null>;
  kill(cause: KillCause): void;
  /** Resolves when the runner (and so every descendant it reaped) has ended. */
  runnerExited(): Promise<void>;
  /** Drops the lifeline: the runner kills every descendant left and exits. */
  release(): void;
}
