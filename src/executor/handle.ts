// A started command as callers see it: live status, exit facts, observer readers, and a `done` that never rejects.
import { STDERR, STDOUT, STREAMS, type CaptureBackend } from '../capture/types.js';
import { executorErrors, supervisionErrors } from '../contract/index.js';
import type { KillCause } from './protocol.js';
import type { Launch } from './launch.js';
import { streamResult, type SpillContext } from './stream-result.js';
import type { WaitingFinding } from './waiting.js';
import { judgeDenials } from './denials.js';
import { termLine } from './wire/control.js';
import type { TermScreen, TermSize } from './wire/term.js';
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

  readonly terminal: boolean;

  /** A handle over `captureId` whose command starts later, with `launch`, or never, with `fail` or a kill. */
  constructor(capture: CaptureBackend, captureId: number, spill: SpillContext, terminal = false) {
    this.terminal = terminal;
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
    return this.#typable(this.#launch?.waiting);
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
      for (const listener of this.#onWaiting) listener(this.#typable(finding));
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

  /** A read of this command's own terminal is one job_input can answer. */
  #typable(finding: WaitingFinding | undefined): WaitingFinding | undefined {
    if (!this.terminal || finding?.kind !== 'input' || finding.source !== 'terminal') return finding;
    return { ...finding, typable: true };
  }

  input(bytes: Buffer): void {
    if (this.terminal && this.#status === 'running') this.#launch?.send(termLine({ type: 'input', bytes }));
  }

  interrupt(): void {
    if (this.#status === 'running') this.#launch?.send('interrupt');
  }

  resize(size: TermSize): void {
    if (this.terminal && this.#status === 'running') this.#launch?.send(termLine({ type: 'resize', size }));
  }

  screen(timeoutMs: number): Promise<TermScreen | undefined> {
    if (!this.terminal || this.#status !== 'running' || !this.#launch) return Promise.resolve(undefined);
    return this.#launch.screen(timeoutMs);
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
    if (facts.enforcement === undefined) return facts;
    // What the confinement refused, from the command's own error lines (denials.ts); a plan a remote
    // host completes cannot tell what that host's view shows, so only its write denials are judged.
    const failed = outcome.error === undefined && outcome.exitCode !== 0 && outcome.exitCode !== null;
    const judged = judgeDenials(this.#capture.tailText(this.captureId, STDERR), this.#sandbox.viewComplete ? this.#sandbox.plan : undefined, failed);
    facts.denied = judged.writeDenied;
    if (judged.unreadable.length > 0) facts.unreadable = judged.unreadable;
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
      if (result.supervisionEnded) {
        this.#status = outcome.status = 'killed';
        outcome.supervisionEnded = true;
      }
      // An escalation covers its command, not what the command leaves behind: that ends before the outcome is known.
      if (result.leftover > 0 && this.#sandbox?.escalated) {
        await launch.release();
        outcome.leftoverEnded = true;
      }
      // A command ended from outside (timeout, abort, a person) takes its processes with it: none was left.
      if (result.ended && !result.cause) outcome.ended = result.ended;
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
