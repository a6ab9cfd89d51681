// The supervision of one command through a runner its worker's fork server forked (a worker host runs many at
// once): its pipes go straight into native captures, its lines travel on its status socket, and its life is the
// runner's, followed here as everywhere (src/executor/runner-life.ts). What stays here is what only this host can do:
// wake a runner its command stopped, and sweep the tree of a runner that is wedged or gone.
import { loadBinding } from '../src/native/loader.js';
import type { Launcher } from './fork-server.js';
import type { RunnerLink } from './runner-link.js';
import { RunnerStatus } from './runner-status.js';
import { hasEnded, watchStopped } from './stopped-runners.js';
import { bashArguments } from '../src/executor/wire/request.js';
import { signal, sweep } from '../src/executor/sweep.js';
import { findLocalWaiting, type WaitingFinding } from '../src/executor/waiting.js';
import { RunnerLife } from '../src/executor/runner-life.js';
import { lifeLine } from '../src/executor/wire/control.js';
import type { TermScreen } from '../src/executor/wire/term.js';
import type { KillCause, LiveCommand, SupervisorResult, SupervisorTask } from '../src/executor/protocol.js';

const binding = loadBinding();
/** Past the grace, how long a runner asked to end its command may take before the host sweeps its tree itself. */
const STUCK_RUNNER_MS = 500;
/** The runner's lines while bash runs: a stopped runner is watched for (and woken) through them. */
const WHILE_RUNNING = new Set(['runner', 'started', 'deadline', 'stopping', 'screen']);

/** What a supervised command tells its host while it runs. */
export interface SupervisedEvents {
  /** What the silent command waits for, at each change of finding (null: no longer known to wait). */
  waiting?: (finding: WaitingFinding | null) => void;
  /** The deadline passed with bash still running, under `atTimeout: 'report'`. */
  deadline?: () => void;
  /** A terminal job's screen, as the runner answered a `screen` line. */
  screen?: (screen: TermScreen) => void;
}

export class Supervised {
  readonly settled: Promise<SupervisorResult>;
  #task: SupervisorTask;
  #life: RunnerLife | undefined;
  /** Asked before the runner could be reached: sent once it can. */
  #pending: KillCause | undefined;
  /** A terminal's lines (or an interrupt) sent before the runner could be reached: they follow in order. */
  #pendingLines: string[] = [];
  #stuckTimer: NodeJS.Timeout | undefined;
  /** Set while the runner lives (not yet reaped), so its pid names no other process. */
  #runnerPid: number | undefined;
  #spawned: Promise<LiveCommand | null>;
  #runnerExited: Promise<void>;
  #lifeline: RunnerLink | undefined;
  #released = false;
  #server: Launcher;
  /** Settles once the capture is finished: at end-of-file of both pipes, or when the runner says the output is over. */
  #captured: Promise<void> = Promise.resolve();
  #outputEnded = false;
  readonly #events: SupervisedEvents;

  constructor(task: SupervisorTask, server: Launcher, events: SupervisedEvents = {}) {
    this.#task = task;
    this.#server = server;
    this.#events = events;
    let resolveSpawned!: (value: LiveCommand | null) => void;
    this.#spawned = new Promise((resolve) => (resolveSpawned = resolve));
    let resolveExited!: () => void;
    this.#runnerExited = new Promise((resolve) => (resolveExited = resolve));
    this.settled = this.#start(resolveSpawned, resolveExited);
  }

  control(): { spawned(): Promise<LiveCommand | null>; runnerExited(): Promise<void> } {
    return { spawned: () => this.#spawned, runnerExited: () => this.#runnerExited };
  }

  /** Asks the runner to end the command (TERM, KILL after the grace: the runner's); wakes it should its command have
   * stopped it, and sweeps its tree should it still not have ended the command well past the grace. */
  kill(cause: KillCause): void {
    const life = this.#life;
    if (!life) return void (this.#pending ??= cause);
    if (life.over) return;
    // bash already ended on its own and its stopped runner has not said so yet: waking it brings the report, and the
    // runner, which reaps before it reads a request, keeps the command's own end.
    life.kill(cause);
    this.#wake();
    if (life.pgid !== undefined && hasEnded(life.pgid)) return;
    this.#stuckTimer ??= setTimeout(() => void sweep(this.#runnerPid, life.pgid), this.#task.graceMs + STUCK_RUNNER_MS);
  }

  release(): void {
    this.#release();
  }

  /** A terminal job's line for the runner (wire/control.ts), on the lifeline while it holds; dropped once the
   * lifeline is let go. */
  send(line: string): void {
    if (this.#released) return;
    if (this.#life) this.#life.control(line);
    else this.#pendingLines.push(line);
  }

  /**
   * Ends the command at once, whatever it does (its session or the executor closes): the runner is woken (a command
   * may have stopped it), told to go and its lifeline dropped, so it kills every descendant; a runner still there
   * after STUCK_RUNNER_MS is stopped again or wedged, and its tree is swept here.
   */
  end(): void {
    this.#life?.ending();
    const runner = this.#runnerPid;
    if (runner === undefined) return this.#release();
    signal(runner, 'SIGCONT');
    signal(runner, 'SIGTERM');
    this.#release();
    const pgid = this.#life?.pgid;
    setTimeout(() => {
      if (this.#runnerPid !== undefined) void sweep(this.#runnerPid, pgid);
    }, STUCK_RUNNER_MS);
  }

  async #start(onSpawned: (value: LiveCommand | null) => void, onRunnerExit: () => void): Promise<SupervisorResult> {
    const { captureId, command, cwd, env, stdin, plan, terminal } = this.#task;
    const [outRead, outWrite] = binding.pipe();
    const [errRead, errWrite] = binding.pipe();
    // The server is handed the runner's descriptors first (synchronously, within this call): the reactor is set up
    // below while the runner forks. Our copies of the write ends keep the pipes from ending meanwhile.
    const bash = bashArguments(command, stdin);
    const request = { cwd, plan, command: bash.command, env, terminal, stdin: bash.stdin };
    const launched = this.#server.launch(request, outWrite, errWrite, lifeLine(this.#task));
    try {
      binding.attachReader(captureId, 0, outRead);
      binding.attachReader(captureId, 1, errRead);
      // Asked now, with no deadline: the end-of-file of both pipes then comes as an event of its own, so a command
      // whose output has ended by its exit is answered from the exit line, with no round trip to the reactor after it.
      this.#captured = binding.drain(captureId, Infinity);
    } catch (error) {
      // Its capture is gone: the runner loses its lifeline and ends the command it started.
      void launched.then((link) => link.socket.destroy(), () => {}).finally(() => {
        binding.closeFd(outWrite);
        binding.closeFd(errWrite);
      });
      throw error;
    }
    let link: RunnerLink;
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
    return this.#follow(link, onSpawned, onRunnerExit);
  }

  /** Follows the runner's lines on its status socket to the command's result. */
  #follow(link: RunnerLink, onSpawned: (value: LiveCommand | null) => void, onRunnerExit: () => void): Promise<SupervisorResult> {
    this.#lifeline = link;
    const status = new RunnerStatus(link.socket);
    void status.closed.then(() => {
      this.#runnerPid = undefined;
      onRunnerExit();
    });
    let unwatch: (() => void) | undefined;
    const life: RunnerLife = new RunnerLife(
      this.#task,
      {
        control: link.send,
        outputOver: () => this.#outputOver(),
        // The runner died without reporting (SIGKILLed, or ended by our own sweep): bash died with it
        // (PR_SET_PDEATHSIG); what else it left in the command's group or session goes now.
        runnerGone: (): Promise<void> => sweep(undefined, life.pgid),
        look: (found) => found(this.#runnerPid === undefined ? null : (findLocalWaiting(this.#runnerPid) ?? null)),
        tellsOutputEnded: true,
      },
      {
        spawned: (pgid) => onSpawned(pgid === null ? null : { pgid, runnerPid: this.#runnerPid ?? 0 }),
        waiting: this.#events.waiting,
        deadline: this.#events.deadline,
        screen: this.#events.screen,
      },
    );
    this.#life = life;
    void this.#captured.then(() => {
      this.#outputEnded = true;
      life.outputEnded();
    });
    if (this.#released) this.#release();
    if (this.#pending) this.kill(this.#pending);
    for (const line of this.#pendingLines.splice(0)) life.control(line);
    void (async () => {
      for (let event = await status.next(); ; event = await status.next()) {
        // From the runner's first word: a command may stop its runner even before the runner reports the start.
        if (event.type === 'runner') {
          this.#runnerPid = event.pid;
          unwatch = watchStopped(event.pid, this.#captured);
        }
        if (!WHILE_RUNNING.has(event.type)) unwatch?.();
        life.feed(event);
        if (event.type === 'eof') return;
      }
    })();
    return life.result.finally(() => clearTimeout(this.#stuckTimer));
  }

  /** The runner says the output is over: the capture ends at once with what the pipes hold (a descendant may hold
   * them open for ever), unless they already reached end-of-file. */
  async #outputOver(): Promise<void> {
    // A runner with nothing left hangs up right behind its last line. When the line and the hang-up wait together,
    // libuv 1.52 (Node 24 on) reads the hang-up in the loop's next poll phase, not with the line as 1.51 did: the
    // second check phase comes after that poll, so the result then says the runner is gone, in one message, not two.
    await new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
    const { captureId } = this.#task;
    if (!this.#outputEnded && !binding.readersDone(captureId)) void binding.drain(captureId, 0);
    return this.#captured;
  }

  #wake(): void {
    if (this.#runnerPid !== undefined) signal(this.#runnerPid, 'SIGCONT');
    else this.#server.wake();
  }

  /** Ends the lifeline: the runner then kills every descendant left, and exits (woken first if stopped). Only our
   * half is shut, so the socket's close still tells when the runner has exited. */
  #release(): void {
    this.#released = true;
    this.#lifeline?.socket.end();
    if (this.#runnerPid !== undefined) signal(this.#runnerPid, 'SIGCONT');
  }
}
