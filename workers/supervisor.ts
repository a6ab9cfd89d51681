// The supervision of one command through a runner its worker's fork server forked (a worker host runs many at
// once); output goes straight into native captures.
import type { Socket } from 'node:net';
import { loadBinding } from '../src/native/loader.js';
import { runnerFailure, supervisionErrors } from '../src/contract/index.js';
import type { Launcher } from './fork-server.js';
import { RunnerStatus, type RunnerEvent } from './runner-status.js';
import { hasEnded, watchStopped } from './stopped-runners.js';
import { bashArguments, chdirFailure } from '../src/executor/runner-request.js';
import { countDescendants, signal, sweep } from '../src/executor/sweep.js';
import { findLocalWaiting, type WaitingFinding } from '../src/executor/waiting.js';
import { watchSilence } from '../src/executor/silence-watch.js';
import type { KillCause, LiveCommand, SupervisorResult, SupervisorTask } from '../src/executor/protocol.js';

const binding = loadBinding();
/** After the KILL, how long a runner may take to report before the host sweeps its tree itself. */
const STUCK_RUNNER_MS = 500;

/** What a supervised command tells its host while it runs. */
export interface SupervisedEvents {
  /** What the silent command waits for, at each change of finding (null: no longer known to wait). */
  waiting?: (finding: WaitingFinding | null) => void;
  /** The deadline passed with bash still running, under `atTimeout: 'report'`. */
  deadline?: () => void;
}

export class Supervised {
  readonly settled: Promise<SupervisorResult>;
  #task: SupervisorTask;
  #cause: KillCause | undefined;
  #pgid: number | undefined;
  #bashEnded = false;
  #graceTimer: NodeJS.Timeout | undefined;
  #stuckTimer: NodeJS.Timeout | undefined;
  /** The sweep after `end()`, apart from the kill's own: nothing the command reports may cancel it. */
  #endTimer: NodeJS.Timeout | undefined;
  /** Set while the runner lives (not yet reaped), so its pid names no other process. */
  #runnerPid: number | undefined;
  #spawned: Promise<LiveCommand | null>;
  #runnerExited: Promise<void>;
  #lifeline: Socket | undefined;
  #released = false;
  #server: Launcher;
  /** Settles once the capture is finished: at end-of-file of both pipes, or when the drain's deadline passed. */
  #captured: Promise<void> = Promise.resolve();
  #outputEnded = false;

  readonly #onWaiting: (finding: WaitingFinding | null) => void;
  readonly #onDeadline: () => void;

  constructor(task: SupervisorTask, server: Launcher, events: SupervisedEvents = {}) {
    this.#task = task;
    this.#server = server;
    this.#onWaiting = events.waiting ?? (() => {});
    this.#onDeadline = events.deadline ?? (() => {});
    let resolveSpawned!: (value: LiveCommand | null) => void;
    this.#spawned = new Promise((resolve) => (resolveSpawned = resolve));
    let resolveExited!: () => void;
    this.#runnerExited = new Promise((resolve) => (resolveExited = resolve));
    this.settled = this.#start(resolveSpawned, resolveExited);
  }

  control(): { spawned(): Promise<LiveCommand | null>; runnerExited(): Promise<void> } {
    return { spawned: () => this.#spawned, runnerExited: () => this.#runnerExited };
  }

  kill(cause: KillCause): void {
    this.#kill(cause);
  }

  release(): void {
    this.#release();
  }

  /**
   * Ends the command at once, whatever it does (its session or the executor closes): KILL to its group, the runner
   * woken (a command may have stopped it) and told to go, the lifeline dropped so the runner kills every other
   * descendant; a runner still there after STUCK_RUNNER_MS is stopped again or wedged, and its tree is swept here.
   */
  end(): void {
    const runner = this.#runnerPid;
    if (runner === undefined) return this.#release();
    const pgid = this.#pgid;
    // At once, no grace: what a closing session ran may not outlive its close.
    if (pgid !== undefined) signal(-pgid, 'SIGKILL');
    signal(runner, 'SIGCONT');
    signal(runner, 'SIGTERM');
    this.#release();
    this.#endTimer ??= setTimeout(() => {
      if (this.#runnerPid !== undefined) void sweep(this.#runnerPid, pgid);
    }, STUCK_RUNNER_MS);
  }

  async #start(
    onSpawned: (value: LiveCommand | null) => void,
    onRunnerExit: () => void,
  ): Promise<SupervisorResult> {
    const { captureId, command, cwd, env, stdin, plan } = this.#task;
    const [outRead, outWrite] = binding.pipe();
    const [errRead, errWrite] = binding.pipe();
    // The server is handed the runner's descriptors first (synchronously, within this call): the reactor is set up
    // below while the runner forks. Our copies of the write ends keep the pipes from ending meanwhile.
    const bash = bashArguments(command, stdin);
    const launched = this.#server.launch({ cwd, plan, command: bash.command, env, stdin: bash.stdin }, outWrite, errWrite);
    try {
      binding.attachReader(captureId, 0, outRead);
      binding.attachReader(captureId, 1, errRead);
      // Asked now, with no deadline: the end-of-file of both pipes then comes as an event of its own, so a command
      // whose output has ended by its exit is answered from the exit line, with no round trip to the reactor after it.
      this.#captured = binding.drain(captureId, Infinity);
    } catch (error) {
      // Its capture is gone: the runner loses its lifeline and ends the command it started.
      void launched.then((link) => link.destroy(), () => {}).finally(() => {
        binding.closeFd(outWrite);
        binding.closeFd(errWrite);
      });
      throw error;
    }
    void this.#captured.then(() => (this.#outputEnded = true));
    let link: Socket;
    try {
      link = await launched;
    } catch (error) {
      onSpawned(null);
      onRunnerExit();
      const failure = error instanceof Error ? error.message : String(error);
      binding.write(captureId, 1, Buffer.from(`${failure}\n`));
      binding.finish(captureId);
      return { kind: 'failed', error: failure, runnerFailed: false };
    } finally {
      // The runner holds its own copies now; ours would keep the pipes open past the command's end.
      binding.closeFd(outWrite);
      binding.closeFd(errWrite);
    }
    this.#lifeline = link;
    const status = new RunnerStatus(link);
    void status.closed.then(() => {
      this.#runnerPid = undefined;
      onRunnerExit();
    });
    if (this.#released) this.#release();

    let started = await status.next();
    let runnerPid = 0;
    // From the runner's first word: a command may stop its runner even before the runner reports the start.
    let unwatch: (() => void) | undefined;
    if (started.type === 'runner') {
      this.#runnerPid = runnerPid = started.pid;
      unwatch = watchStopped(runnerPid, this.#captured);
      if (this.#cause) this.#wake(undefined);
      started = await status.next();
    }
    clearTimeout(this.#stuckTimer);
    if (started.type !== 'started') {
      unwatch?.();
      onSpawned(null);
      const failure =
        started.type === 'workdir'
          ? chdirFailure(started.errno, cwd)
          : started.type === 'error'
            ? runnerFailure(started.code, started.message)
            : supervisionErrors.runnerNotStarted;
      // Readable once on stderr, for handles that never reject.
      binding.write(captureId, 1, Buffer.from(`${failure}\n`));
      binding.finish(captureId);
      if (started.type === 'error') return { kind: 'failed', error: failure, runnerFailed: true, ...(started.code ? { code: started.code } : {}) };
      return { kind: 'failed', error: failure, runnerFailed: false };
    }
    this.#pgid = started.pid;
    onSpawned({ pgid: started.pid, runnerPid });
    if (this.#cause) this.#signalGroup();

    // The one place the deadline is kept: it kills here, or is reported for the caller to move the command on.
    const timer = setTimeout(() => (this.#task.atTimeout === 'kill' ? this.#kill('timeout') : this.#onDeadline()), this.#task.timeoutMs);
    const unwatchSilence = this.#watchSilence(runnerPid);
    const ended: RunnerEvent = await status.next();
    unwatch?.();
    this.#bashEnded = true;
    unwatchSilence();
    clearTimeout(timer);
    clearTimeout(this.#stuckTimer);
    if (ended.type === 'eof') {
      // The runner died without reporting (SIGKILLed, or ended by our own sweep): bash died with it
      // (PR_SET_PDEATHSIG); what else it left in the command's group or session goes now.
      await sweep(undefined, this.#pgid);
    } else {
      // A runner with nothing left hangs up right behind this line. Read in the same pass of the event loop, the
      // hang-up has been seen by the check phase: the result then says the runner is gone, with nothing to count.
      await new Promise((resolve) => setImmediate(resolve));
    }
    // The drain settles once the capture is finished: no finish (and no wake of the reactor) is needed here.
    await this.#drain();
    const cause = this.#cause ?? null;
    const { enforcement } = started;
    // Counted after the drain, so what ended meanwhile is not reported; the runner (a subreaper) holds the rest.
    const leftover = ended.type !== 'eof' && this.#runnerPid !== undefined ? countDescendants(this.#runnerPid, cause ? this.#pgid : undefined) : 0;
    if (ended.type === 'exit') return { kind: 'ended', exitCode: ended.code, signal: null, cause, enforcement, leftover };
    if (ended.type === 'signal') return { kind: 'ended', exitCode: null, signal: ended.signal, cause, enforcement, leftover };
    // Killed on request and swept: the command ended by our SIGKILL, whatever its runner failed to say.
    if (cause) return { kind: 'ended', exitCode: null, signal: 'SIGKILL', cause, enforcement, leftover: 0 };
    return { kind: 'failed', error: supervisionErrors.runnerSilent, runnerFailed: true };
  }

  /** Reports what the command waits for once it is silent (see silence-watch.ts); /proc reads are synchronous here,
   * in the worker. */
  #watchSilence(runnerPid: number): () => void {
    return watchSilence(
      this.#task.captureId,
      () => this.#cause !== undefined,
      (found) => found(findLocalWaiting(runnerPid) ?? null),
      this.#onWaiting,
    );
  }

  /** First cause wins: a timeout after an abort stays an abort. TERM now, KILL after the grace. */
  #kill(cause: KillCause): void {
    if (this.#cause || this.#bashEnded) return;
    // bash already ended on its own and its runner has not said so yet (it was stopped): a kill now would end
    // nothing, and must not turn the command's own exit into "killed". Waking the runner brings the report.
    if (this.#pgid !== undefined && hasEnded(this.#pgid)) return this.#wake(undefined);
    this.#cause = cause;
    if (this.#pgid !== undefined) return this.#signalGroup();
    // Not started as far as we know: the command may have stopped its runner before it could report. Wake it (it
    // then reports, and the TERM follows); if it never does, sweep its tree.
    this.#wake(undefined);
    this.#stuckTimer = setTimeout(() => void sweep(this.#runnerPid, undefined), this.#task.graceMs + STUCK_RUNNER_MS);
  }

  /** TERM to the group, then KILL after the grace. Stopped processes (a command may SIGSTOP itself, its runner or
   * its group) get SIGCONT with each step, or a trapped TERM and the runner's report would wait for ever. A runner
   * that still has not reported half a second after the KILL is stopped again or wedged: the host sweeps its tree. */
  #signalGroup(): void {
    const pgid = this.#pgid!;
    clearTimeout(this.#stuckTimer);
    signalGroup(pgid, 'SIGTERM');
    this.#wake(pgid);
    // KILL after the grace even if bash already ended: its group may still hold descendants.
    this.#graceTimer = setTimeout(() => {
      signalGroup(pgid, 'SIGKILL');
      this.#wake(pgid);
      this.#stuckTimer = setTimeout(() => void sweep(this.#runnerPid, pgid), STUCK_RUNNER_MS);
    }, this.#task.graceMs);
  }

  #wake(pgid: number | undefined): void {
    if (pgid !== undefined) signalGroup(pgid, 'SIGCONT');
    if (this.#runnerPid !== undefined) signal(this.#runnerPid, 'SIGCONT');
    else this.#server.wake();
  }

  /**
   * Waits a bounded time for the output pipes to reach end-of-file (a descendant may hold them open forever); when
   * the time runs out, the reactor still reads every byte the pipes hold before it finishes the capture.
   */
  #drain(): Promise<void> {
    // The deadline shortens the drain asked for at the start; both settle when the capture is finished. Pipes already
    // at end-of-file need none: the reactor is finishing the capture (and is not woken for nothing).
    const { captureId } = this.#task;
    if (!this.#outputEnded && !binding.readersDone(captureId)) void binding.drain(captureId, this.#task.drainMs);
    return this.#captured;
  }

  /** Ends the lifeline: the runner then kills every descendant left, and exits (woken first if stopped). Only our
   * half is shut, so the socket's close still tells when the runner has exited. */
  #release(): void {
    this.#released = true;
    clearTimeout(this.#graceTimer);
    this.#lifeline?.end();
    if (this.#runnerPid !== undefined) signal(this.#runnerPid, 'SIGCONT');
  }
}

function signalGroup(pgid: number, name: NodeJS.Signals): void {
  signal(-pgid, name);
}
