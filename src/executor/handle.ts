// A started command as callers see it: live status, exit facts, observer readers, and a `done` that never rejects.
import { STDERR, STDOUT, STREAMS, type CaptureBackend } from '../capture/types.js';
import { executorErrors, supervisionErrors } from '../contract/index.js';
import type { KillCause } from './protocol.js';
import type { Launch } from './launch.js';
import { streamResult, type SpillContext } from './stream-result.js';
import type { WaitingFinding } from './waiting.js';
import type {
  ObservedReader,
  ProcessHandle,
  ProcessOutcome,
  ProcessStatus,
  SandboxFacts,
  SandboxSpec,
  StreamResult,
} from './types.js';

const DEFAULT_OBSERVE = 64 * 1024;
/**
 * How Landlock and bubblewrap denials read on stderr (EACCES, EPERM, EROFS as the shell and coreutils print them).
 * The one fact still read from output, because only the kernel knows it: the confinement refuses a system call of
 * the command itself, which neither the runner nor the supervisor sees. Everything the runner knows (its own
 * failure, the workdir it could not enter, what it enforces) comes as a field of its status instead.
 */
const DENIAL = /Permission denied|Operation not permitted|Read-only file system/;

export class StartedCommand implements ProcessHandle {
  readonly captureId: number;
  readonly done: Promise<ProcessOutcome>;
  readonly stdout: ObservedReader;
  readonly stderr: ObservedReader;
  /** Settles when nothing of the command is left: its runner has exited, or it never started. */
  readonly gone: Promise<void>;
  readonly deadline: Promise<void>;
  #status: ProcessStatus = 'running';
  #exitCode: number | null = null;
  #signal: string | null = null;
  #cause: KillCause | null = null;
  #capture: CaptureBackend;
  readonly #spill: SpillContext;
  #launch: Launch | undefined;
  readonly #onWaiting = new Set<(finding: WaitingFinding | undefined) => void>();
  /** Neither launched nor settled: its spec is still being prepared. */
  #waiting = true;
  #released = false;
  #settle!: (outcome: ProcessOutcome) => void;
  #markGone!: () => void;
  #markDeadline!: () => void;

  #sandbox: SandboxSpec | undefined;
  #outcome: ProcessOutcome | undefined;
  /** Told once, at release, how many bytes the command wrote and how many of them went to spill files. */
  onRelease?: (capturedBytes: number, spilledBytes: number) => void;
  /** Settles once the session's spill directory is made, or known not to be (the result then says why). */
  spillPlaced: Promise<void> = Promise.resolve();

  /** A handle over `captureId` whose command starts later, with `launch`, or never, with `fail` or a kill. */
  constructor(capture: CaptureBackend, captureId: number, spill: SpillContext) {
    this.#capture = capture;
    this.#spill = spill;
    this.captureId = captureId;
    this.stdout = { read: (from, max = DEFAULT_OBSERVE) => capture.observe(captureId, STDOUT, from, max) };
    this.stderr = { read: (from, max = DEFAULT_OBSERVE) => capture.observe(captureId, STDERR, from, max) };
    this.done = new Promise<ProcessOutcome>((resolve) => (this.#settle = resolve)).then((outcome) => (this.#outcome = outcome));
    this.gone = new Promise<void>((resolve) => (this.#markGone = resolve));
    this.deadline = new Promise<void>((resolve) => (this.#markDeadline = resolve));
  }

  /** What the silent command waits for, as its supervisor last found it. */
  waitingFor(): WaitingFinding | undefined {
    return this.#launch?.waiting;
  }

  onWaiting(listener: (finding: WaitingFinding | undefined) => void): () => void {
    this.#onWaiting.add(listener);
    return () => this.#onWaiting.delete(listener);
  }

  /** True until the command is launched or the handle settles without it. */
  get waiting(): boolean {
    return this.#waiting;
  }

  /** The command runs under `launch`; the handle follows it to its end. */
  launch(launch: Launch, sandbox: SandboxSpec | undefined): void {
    this.#waiting = false;
    this.#launch = launch;
    launch.onWaiting((finding) => {
      for (const listener of this.#onWaiting) listener(finding);
    });
    this.#sandbox = sandbox;
    void launch.gone.then(this.#markGone);
    void launch.deadline.then(this.#markDeadline);
    void this.#follow(launch).then(this.#settle);
  }

  /** The command never started: settled as failed, the reason readable once on stderr. */
  fail(error: string, sandbox?: SandboxSpec): void {
    this.#waiting = false;
    this.#sandbox = sandbox;
    this.#capture.write(this.captureId, STDERR, Buffer.from(`${error}\n`));
    this.#capture.finish(this.captureId);
    this.#markGone();
    this.#settle(this.#fail(error));
  }

  get status(): ProcessStatus {
    return this.#status;
  }
  get exitCode(): number | null {
    return this.#exitCode;
  }
  get signal(): string | null {
    return this.#signal;
  }
  /** What ended the command when it was ended from outside: the first cause wins. */
  get cause(): KillCause | null {
    return this.#cause;
  }

  kill(): void {
    // Once bash has ended, what it left running goes: the runner kills it and exits.
    if (this.#outcome?.leftover) void this.#launch?.release();
    else this.#end('kill');
  }

  abort(): void {
    this.#end('abort');
  }

  streams(): { stdout: StreamResult; stderr: StreamResult } {
    return {
      stdout: streamResult(this.#capture, this.captureId, STDOUT, this.#spill),
      stderr: streamResult(this.#capture, this.captureId, STDERR, this.#spill),
    };
  }

  sandboxFacts(): SandboxFacts | undefined {
    const outcome = this.#outcome;
    if (!this.#sandbox || !outcome) return undefined;
    const facts: SandboxFacts = { mode: this.#sandbox.mode, denied: false };
    if (outcome.enforcement === 'full' || outcome.enforcement === 'partial') facts.enforcement = outcome.enforcement;
    if (outcome.runnerFailed) {
      facts.runnerFailed = true;
      return facts;
    }
    const failed = outcome.error === undefined && outcome.exitCode !== 0 && outcome.exitCode !== null;
    facts.denied = failed && facts.enforcement !== undefined && DENIAL.test(this.#capture.tailText(this.captureId, STDERR));
    return facts;
  }

  release(): void {
    if (this.#released) return;
    // A command still being prepared must never start writing into a freed capture.
    if (this.#waiting) this.#end('kill');
    this.#released = true;
    if (this.onRelease) {
      let captured = 0;
      let spilled = 0;
      try {
        for (const stream of STREAMS) {
          const info = this.#capture.info(this.captureId, stream);
          captured += info.total;
          if (info.spill === 'complete') spilled += info.total;
        }
        this.onRelease(captured, spilled);
      } catch {
        // Counting is for metrics only; the capture is freed regardless.
      }
    }
    this.#capture.free(this.captureId);
  }

  #end(cause: KillCause): void {
    if (this.#status !== 'running' || this.#cause) return;
    this.#cause = cause;
    if (this.#launch) {
      this.#launch.kill(cause);
      return;
    }
    if (!this.#waiting) return;
    // Ended while still being prepared: it settles now, and nothing is ever started for it.
    this.#waiting = false;
    this.#capture.finish(this.captureId);
    this.#status = 'killed';
    this.#markGone();
    this.#settle({ status: 'killed', exitCode: null, signal: null });
  }

  async #follow(launch: Launch): Promise<ProcessOutcome> {
    const result = await launch.result;
    if (result.kind === 'ended') {
      this.#cause = result.cause;
      this.#exitCode = result.exitCode;
      this.#signal = result.signal;
      this.#status = result.cause ? 'killed' : 'exited';
      const outcome: ProcessOutcome = { status: this.#status, exitCode: this.#exitCode, signal: this.#signal };
      if (this.#sandbox) outcome.enforcement = result.enforcement;
      if (result.leftover > 0) outcome.leftover = result.leftover;
      return outcome;
    }
    if (result.kind === 'crashed') {
      // The worker is gone; its runner lost the lifeline and killed the command, so the pipes end soon.
      this.#capture.finish(this.captureId);
      return this.#fail(supervisionErrors.workerStopped(result.error));
    }
    // A read policy this host cannot enforce: the same refusal as when no backend works at all.
    if (this.#sandbox && result.code === 'RUNNER_SANDBOX_UNAVAILABLE') {
      return this.#fail(executorErrors.sandboxUnavailable(this.#sandbox.mode), true);
    }
    return this.#fail(result.error, result.runnerFailed);
  }

  #fail(error: string, runnerFailed = false): ProcessOutcome {
    this.#status = 'killed';
    const outcome: ProcessOutcome = { status: 'killed', exitCode: null, signal: null, error };
    if (runnerFailed) outcome.runnerFailed = true;
    return outcome;
  }
}
