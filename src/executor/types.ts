// The executor seam: requests from callers, resolved specs, results and process handles.
import type { ObserveResult } from '../capture/types.js';
import type { SandboxFacts } from '../contract/index.js';
import type { WaitingFinding } from './waiting.js';

export interface ExecRequest {
  command: string;
  workdir?: string;
  timeoutMs?: number;
  /** Trusted callers only: a tail cap for stdout other than the configured one. */
  stdoutMaxBytes?: number;
  signal?: AbortSignal;
  /** Trusted callers only: text on the command's stdin (otherwise /dev/null). */
  stdin?: string;
  /** Trusted callers only: extra environment, below the managed one. */
  env?: Record<string, string>;
  /** The managed DSH_* environment, applied last (the spec names this seam `dshEnv`). */
  dshEnv?: Readonly<Record<string, string>>;
  /** The session the call belongs to: its spill files live and die with it. */
  sessionId?: string;
  /** Confinement for this call, from a sandboxing executor's policy. */
  sandboxPolicy?: SandboxSpec;
}

/** How one call is confined: its mode and the runner flags that enforce it. */
export interface SandboxSpec {
  mode: string;
  runnerArgs: string[];
  /** In the session's own mode (not an escalation): runs in the session's sandbox, shared by its calls. */
  shared?: boolean;
}

export type { SandboxFacts };

export interface ExecSpec {
  command: string;
  workdir: string;
  timeoutMs: number;
  stdoutMaxBytes: number;
  stderrMaxBytes: number;
  maxSpillBytes: number;
  graceMs: number;
  env: Record<string, string>;
  stdin?: string;
  signal?: AbortSignal;
  sessionId?: string;
  sandbox?: SandboxSpec;
}

export interface StreamResult {
  text: string;
  truncated: boolean;
  /** The whole stream, when it was truncated and the spill file is complete. */
  spillPath?: string;
  /** Why a truncated stream has no spill file (absent when it has one). */
  spillUnavailable?: string;
}

export interface RunResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  timeoutMs: number;
  stdout: StreamResult;
  stderr: StreamResult;
  sandbox?: SandboxFacts;
  /** Processes the command left running (absent when none); they end on their own or when the session closes. */
  leftover?: number;
}

export type ProcessStatus = 'running' | 'exited' | 'killed';

/** What `done` resolves to; it never rejects. */
export interface ProcessOutcome {
  status: Exclude<ProcessStatus, 'running'>;
  exitCode: number | null;
  signal: string | null;
  /** The infrastructure failure that kept the command from running, also written once to its stderr. */
  error?: string;
  /** What the runner says its confinement enforces (`none`, `full`, `partial`). */
  enforcement?: string;
  /** The error came from the runner itself (confinement or exec), not from starting it. */
  runnerFailed?: boolean;
  /** How many processes the command left running when bash ended (absent when none): they live on under its
   * runner until they end, `kill()` ends them, or the session closes. */
  leftover?: number;
}

export interface ObservedReader {
  /** Reads by absolute offset without consuming anything. */
  read(from: number, max?: number): ObserveResult;
}

export interface ProcessHandle {
  readonly captureId: number;
  readonly status: ProcessStatus;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly done: Promise<ProcessOutcome>;
  readonly stdout: ObservedReader;
  readonly stderr: ObservedReader;
  /** Idempotent: TERM to the process group, KILL after the grace; once bash has ended, ends what it left running. */
  kill(): void;
  /** Settles when the command's runner has exited, and with it every process the command left running. */
  readonly gone: Promise<void>;
  /** The streams' rendered tails and spill paths; meaningful once done. */
  streams(): { stdout: StreamResult; stderr: StreamResult };
  /** The confinement facts of a sandboxed call, once done. */
  sandboxFacts(): SandboxFacts | undefined;
  /** Frees the capture; call once the output is no longer needed. */
  release(): void;
  /** What the silent command waits for (input nobody can give, connections), as last found; undefined otherwise. */
  waitingFor(): WaitingFinding | undefined;
  /** Calls `listener` with each change of that finding; returns the unsubscribe. */
  onWaiting(listener: (finding: WaitingFinding | undefined) => void): () => void;
}
