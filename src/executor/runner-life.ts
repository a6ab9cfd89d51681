// One command's life as its supervisor follows it, whichever way its runner's lines travel (a local runner's status
// socket in a worker thread, or the frames of a `--stdio` channel): the terms (wire/control.ts `lifeLine`) go to the
// runner with its request, whichever carries it, and the runner
// keeps them (the deadline, TERM then KILL after the grace, the bound on waiting for the output, what the command
// left running); its lines come back here and make the one result. Nothing here keeps a timer of the command's life.
import { runnerFailure, supervisionErrors } from '../contract/index.js';
import { loadBinding } from '../native/loader.js';
import type { KillCause, SupervisorResult, SupervisorTask } from './protocol.js';
import { watchSilence, type Found } from './silence-watch.js';
import type { WaitingFinding } from './waiting.js';
import { killLine, OUTPUT_ENDED } from './wire/control.js';
import { chdirFailure, type RunnerEvent } from './wire/status.js';
import type { TermScreen } from './wire/term.js';

/** What carries a command's lines, and what only its carrier can do. */
export interface LifeCarrier {
  /** Sends one control line to the runner. */
  control(line: string): void;
  /** The runner said the output is over (or is gone): settles once every byte is in the capture, finished. */
  outputOver(): Promise<void>;
  /** The runner is gone before bash's end was told (killed): settles once what it left is swept. */
  runnerGone(): Promise<void>;
  /** Looks at what the silent command waits on (one look at a time). */
  look(found: Found): void;
  /** Whether this side tells the runner when the output ends (where the output is read here, not by a server). */
  tellsOutputEnded: boolean;
}

export interface LifeEvents {
  spawned?(pgid: number | null): void;
  waiting?(finding: WaitingFinding | null): void;
  deadline?(): void;
  screen?(screen: TermScreen): void;
}

type Failure = Omit<Extract<SupervisorResult, { kind: 'failed' }>, 'kind'>;

export class RunnerLife {
  /** Settles once, with the command's result. */
  readonly result: Promise<SupervisorResult>;
  readonly #task: SupervisorTask;
  readonly #carrier: LifeCarrier;
  readonly #events: LifeEvents;
  #settle!: (result: SupervisorResult) => void;
  #started: { pgid: number; enforcement: string } | undefined;
  /** The runner said it exists (its first line): gone later, it was killed, not never started. */
  #runnerSeen = false;
  #cause: KillCause | null = null;
  /** The first cause this side asked the runner to end the command for. */
  #asked: KillCause | undefined;
  /** bash's end, and the processes it left that ended with it (a confined command's, ended by its runner). */
  #ended: { exitCode: number | null; signal: string | null; ended?: number } | undefined;
  #done = false;
  #unwatch: (() => void) | undefined;

  constructor(task: SupervisorTask, carrier: LifeCarrier, events: LifeEvents = {}) {
    this.#task = task;
    this.#carrier = carrier;
    this.#events = events;
    this.result = new Promise((resolve) => (this.#settle = resolve));
  }

  /** The group to signal while the command runs (the runner's own part ends it; a host sweep may need it). */
  get pgid(): number | undefined {
    return this.#started?.pgid;
  }

  /** True once bash has ended or the command failed. */
  get over(): boolean {
    return this.#ended !== undefined || this.#done;
  }

  /** Asks the runner to end the command (it keeps the first cause, and does nothing once bash has ended). */
  kill(cause: KillCause): void {
    if (this.over) return;
    this.#asked ??= cause;
    this.#carrier.control(killLine(cause));
  }

  /** A line for a terminal job's relay (or an interrupt): nothing once the command has its result. */
  control(line: string): void {
    if (!this.#done) this.#carrier.control(line);
  }

  /** The command is being ended at once by dropping its lifeline (its session or the executor closes): a runner gone
   * before it told bash's end was ended by us, not lost. */
  ending(): void {
    this.#asked ??= 'kill';
  }

  /** The output ended where this side reads it: the runner need not wait for it longer. */
  outputEnded(): void {
    if (this.#carrier.tellsOutputEnded && !this.#done) this.#carrier.control(OUTPUT_ENDED);
  }

  /** One line of the runner's (or its end). */
  feed(event: RunnerEvent): void {
    if (this.#done) return;
    switch (event.type) {
      case 'started':
        this.#started = { pgid: event.pid, enforcement: event.enforcement };
        this.#events.spawned?.(event.pid);
        this.#unwatch = watchSilence(this.#task.captureId, () => this.#cause !== null, this.#carrier.look, (f) => this.#events.waiting?.(f));
        return;
      case 'deadline':
        return this.#events.deadline?.();
      case 'screen':
        return this.#events.screen?.(event.screen);
      case 'stopping':
        this.#cause = event.cause;
        return;
      case 'exit':
      case 'signal':
        this.#unwatch?.();
        this.#ended = {
          ...(event.type === 'exit' ? { exitCode: event.code, signal: null } : { exitCode: null, signal: event.signal }),
          ...(event.ended ? { ended: event.ended } : {}),
        };
        return;
      case 'over':
        return void this.#finish(event.left);
      case 'eof':
        return void this.#gone();
      case 'workdir':
      case 'error':
        if (!this.#started) return this.fail(this.#notStarted(event));
        return;
      case 'runner':
        this.#runnerSeen = true;
        return;
    }
  }

  /** The command did not run (or its carrier is gone): the reason is readable once on stderr too, for handles that
   * never reject. */
  fail(failure: Failure): void {
    if (this.#done) return;
    this.#done = true;
    this.#unwatch?.();
    if (!this.#started) this.#events.spawned?.(null);
    try {
      loadBinding().write(this.#task.captureId, 1, Buffer.from(`${failure.error}\n`));
      loadBinding().finish(this.#task.captureId);
    } catch {
      // The handle was released first: its capture is gone and takes nothing more.
    }
    this.#settle({ kind: 'failed', ...failure });
  }

  /** What carries the command's lines is gone (a connection lost): a command whose bash ended keeps its result,
   * any other fails with `why`. */
  lost(why: string): void {
    if (this.#ended) return void this.#finish(0);
    this.fail({ error: why, runnerFailed: false });
  }

  /** The output is over: the result, once every byte is in the capture. */
  async #finish(left: number): Promise<void> {
    if (this.#done || !this.#ended || !this.#started) return;
    this.#done = true;
    await this.#carrier.outputOver();
    this.#settle({ kind: 'ended', ...this.#ended, cause: this.#cause, enforcement: this.#started.enforcement, leftover: left });
  }

  /** The runner is gone: after bash's end, nothing was left (it hangs up behind its last line); before it, it was
   * killed, and took bash with it. */
  async #gone(): Promise<void> {
    if (this.#done) return;
    if (this.#ended) return this.#finish(0);
    if (!this.#started && !this.#runnerSeen) return this.fail({ error: supervisionErrors.runnerNotStarted, runnerFailed: false });
    this.#done = true;
    this.#unwatch?.();
    if (!this.#started) this.#events.spawned?.(null);
    await this.#carrier.runnerGone();
    await this.#carrier.outputOver();
    // Killed before it said `started` (bash may already have run and printed, as a command that kills its runner at
    // once does): what the capture holds is kept, and what was in force is unknown.
    const enforcement = this.#started?.enforcement ?? 'unknown';
    // Ended on request, by us or by the runner's own ending of it: the command ended by a KILL, whoever sent it.
    const cause = this.#cause ?? this.#asked;
    if (cause) {
      this.#settle({ kind: 'ended', exitCode: null, signal: 'SIGKILL', cause, enforcement, leftover: 0 });
      return;
    }
    this.#settle({ kind: 'ended', exitCode: null, signal: null, cause: null, enforcement, leftover: 0, supervisionEnded: true });
  }

  #notStarted(event: Extract<RunnerEvent, { type: 'workdir' | 'error' }>): Failure {
    if (event.type === 'workdir') return { error: chdirFailure(event.errno, this.#task.cwd), runnerFailed: false };
    return { error: runnerFailure(event.code, event.message), runnerFailed: true, ...(event.code ? { code: event.code } : {}) };
  }
}
