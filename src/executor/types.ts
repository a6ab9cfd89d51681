// The executor seam: the Executor interface every layer above src/executor/ holds, and its requests, specs, results and
// process handles.
import type { CaptureBackend, ObserveResult } from '../capture/types.js';
import type { CommandLimits, SandboxFacts } from '../contract/index.js';
import type { WaitingFinding } from './waiting.js';
import type { ConfinementPlan } from './wire/plan.js';
import type { TermScreen, TermSize } from './wire/term.js';

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
  /** Run on a terminal of this size, which the runner opens (stdout and stderr are then the one terminal stream). */
  terminal?: TermSize;
}

/** How one call is confined: its mode and the runner's plan that enforces it. */
export interface SandboxSpec {
  mode: string;
  plan: ConfinementPlan;
  /** In the session's own mode (not an escalation): runs in the session's sandbox, shared by its calls. */
  shared?: boolean;
  /** Network by name: the session's key at the host's proxy, to which its sandbox hands its listener. */
  netKey?: string;
  /** A one-shot escalation a person approved: what the command leaves running ends when bash ends. */
  escalated?: boolean;
  /** The plan names everything the command can read (false where another host completes it), so a path its errors
   * name can be judged against it. */
  viewComplete?: boolean;
}

export type { SandboxFacts };

export interface ExecSpec {
  command: string;
  workdir: string;
  /** The command's one deadline, kept by whoever supervises it: `run()` kills the command at it, `start()` reports
   * it on the handle's `deadline` and lets the command run on. */
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
  terminal?: TermSize;
  /** Told the handle as soon as `run` starts the command (a caller that reports progress reads its capture). */
  onStart?: (handle: ProcessHandle) => void;
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
  /** Those processes were ended with bash (an escalated command's). */
  leftoverEnded?: boolean;
  /** Processes the command left running that its sandbox ended with it (absent when none). */
  ended?: number;
  /** The runner's own failure (confinement or exec, with `sandbox.runnerFailed`): the command did not run. */
  error?: string;
  /** The runner supervising the command was killed before the command ended (it took the command with it): the
   * output is what it printed until then, how it ended is unknown. */
  supervisionEnded?: true;
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
  /** The runner was killed before the command ended: its output is kept, its end unknown. */
  supervisionEnded?: true;
  /** An escalated command's leftovers: ended as bash ended, before the outcome settled. */
  leftoverEnded?: boolean;
  /** How many processes bash left running that ended with it (a confined command's, ended by its runner). */
  ended?: number;
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
  /** Settles when the command reaches its spec's `timeoutMs` still running (a started command is not killed then:
   * its caller moves it to the background or kills it); never, when it ends first. */
  readonly deadline: Promise<void>;
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
  /** Whether the command runs on a terminal. */
  readonly terminal: boolean;
  /** Bytes for a terminal job's program, as if typed (nothing once it has ended, or without a terminal). */
  input(bytes: Buffer): void;
  /** SIGINT to the command's process group (a command without a terminal: its ctrl-c). */
  interrupt(): void;
  /** A terminal job's terminal takes this size (nothing without a terminal, or once ended). */
  resize(size: TermSize): void;
  /** A terminal job's screen as its runner's model holds it; undefined without a terminal, once ended, or when
   * no answer came within `timeoutMs`. */
  screen(timeoutMs: number): Promise<TermScreen | undefined>;
}

/** A session's spill directory, and a promise of why it could not be made (undefined once it exists). */
export interface SpillPlace {
  dir: string;
  made: Promise<string | undefined>;
}

/**
 * What a sandbox on this host needs from the executor whose commands it confines: the runner it probes and
 * passes its flags to, and the spill places it must hide from other sessions.
 */
export interface SandboxHost {
  /** The shellring-runner executable every command starts through. */
  readonly runnerPath: string;
  /** The directory holding every session's spill files. */
  readonly spillRoot: string;
  /** The session's spill directory (made on first use). */
  spillDirFor(sessionId: string | undefined): SpillPlace;
}

/** Running totals and load, for metrics. */
export interface ExecutorStats {
  /** Bytes written by released commands, stdout and stderr. */
  capturedBytes: number;
  /** Of those, the bytes kept whole in spill files. */
  spilledBytes: number;
  /** The share of time the executor's supervision was busy since start (0..1). */
  poolUtilization: number;
}

/** A spill file opened for reading, or why `path` names none of this executor's. */
export type SpillRead =
  | { ok: true; name: string; size: number; stream: NodeJS.ReadableStream }
  | { ok: false; reason: 'missing' | 'absent' | 'outside' | 'not-file' };

/**
 * The executor seam: everything above src/executor/ (the bash tool, sessions, the runtime, the Cordis services,
 * the faces) holds an `Executor`, never a concrete one. Output always lands in `capture`, so the job registry,
 * rendering and every contract text are the same whichever executor ran the command.
 */
export interface Executor {
  /** Where every command's output is captured; the job registry and the tools read it from here. */
  readonly capture: CaptureBackend;
  /** The configured directory a call without its own runs in (undefined: the host process's). */
  readonly cwd: string | undefined;
  /** The configured timeout, timeout cap and tail cap: what the model is told about its commands (never a literal). */
  readonly commandLimits: CommandLimits;
  /** Present when commands run on this host, so a sandbox here can confine them; absent otherwise. */
  readonly sandboxHost?: SandboxHost;
  /** Applies defaults and caps to a request, with the environment policy; throws a clear error on a bad one. */
  resolve(request: ExecRequest): ExecSpec;
  /** Runs to exit, `spec.timeoutMs` or abort; rejects only when the command could not run at all. */
  run(spec: ExecSpec): Promise<RunResult>;
  /** Starts a command and returns its handle at once; `spec.timeoutMs` settles its `deadline`, never kills it. A spawn
   * failure settles the handle. */
  start(spec: ExecSpec, options?: { ring?: boolean }): ProcessHandle;
  /** Like `start` for a spec still being prepared: the handle exists at once, a rejected preparation fails it. */
  startWhenReady(spec: Promise<ExecSpec>, options?: { sessionId?: string; ring?: boolean; terminal?: boolean }): ProcessHandle;
  /** Ends what the session still runs (descendants included) and removes its spill files. */
  closeSession(sessionId: string | undefined): Promise<void>;
  /** Ends everything still running and frees what the executor holds; every call resolves once that is done. */
  close(): Promise<void>;
  /** Output totals and load, for metrics. */
  stats(): ExecutorStats;
  /** Opens one of this executor's spill files for reading; anything else is refused with a reason. */
  readSpill(path: string): Promise<SpillRead>;
}
