// One command handed to a supervisor host: its result, its end, and its place among live commands.
import type { LaunchControl, LaunchListener, SupervisorHosts } from './hosts.js';
import type { KillCause, SupervisorResult, SupervisorTask } from './protocol.js';
import type { WaitingFinding } from './waiting.js';
import type { TermScreen } from './wire/term.js';

/** What supervises commands: the worker threads here, or the SSH executor's hosts. */
export type CommandHosts = Pick<SupervisorHosts, 'start' | 'close' | 'utilization' | 'threads'>;

export type LaunchResult = SupervisorResult | { kind: 'crashed'; error: string };

export class Launch {
  /** Settles when bash has ended and its output drained; never rejects. */
  readonly result: Promise<LaunchResult>;
  /** Settles when the runner and every descendant it reaped have ended (or the worker is gone). */
  readonly gone: Promise<void>;
  /** Settles when the command reaches its deadline still running, under `atTimeout: 'report'`; else never. */
  readonly deadline: Promise<void>;
  #control: LaunchControl;
  #ended = false;
  #waiting: WaitingFinding | undefined;
  #onWaiting = new Set<(finding: WaitingFinding | undefined) => void>();
  /** Callers of `screen()` waiting for the runner's answer. */
  #screens: ((screen: TermScreen | undefined) => void)[] = [];

  constructor(hosts: CommandHosts, task: SupervisorTask) {
    let settle!: (result: LaunchResult) => void;
    let markGone!: () => void;
    let markDeadline!: () => void;
    this.result = new Promise((resolve) => (settle = resolve));
    this.gone = new Promise((resolve) => (markGone = resolve));
    this.deadline = new Promise((resolve) => (markDeadline = resolve));
    const end = () => {
      this.#ended = true;
      markGone();
    };
    const listener: LaunchListener = {
      result: (result) => {
        this.#setWaiting(undefined);
        settle(result);
      },
      gone: end,
      waiting: (finding) => this.#setWaiting(finding ?? undefined),
      deadline: () => markDeadline(),
      screen: (screen) => {
        for (const answer of this.#screens.splice(0)) answer(screen);
      },
      crashed: (error) => {
        // The worker is gone; its runner lost the lifeline (or its parent) and kills the command.
        settle({ kind: 'crashed', error });
        end();
      },
    };
    this.#control = hosts.start(task, listener);
  }

  kill(cause: KillCause): void {
    if (!this.#ended) this.#control.kill(cause);
  }

  /** Drops the lifeline: the runner kills whatever descendants are left. Resolves once nothing is left. */
  async release(): Promise<void> {
    if (!this.#ended) this.#control.release();
    await this.gone;
  }

  /** Ends the command at once, by its supervisor. Resolves once nothing is left. */
  async end(): Promise<void> {
    if (!this.#ended) this.#control.end();
    await this.gone;
  }

  /** A terminal line for the runner (wire/control.ts). */
  send(line: string): void {
    if (!this.#ended) this.#control.send(line);
  }

  /** The runner's screen; undefined once the command is gone or after `timeoutMs` without an answer. */
  screen(timeoutMs: number): Promise<TermScreen | undefined> {
    if (this.#ended) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const timer = setTimeout(() => answer(undefined), timeoutMs);
      const answer = (screen: TermScreen | undefined) => {
        clearTimeout(timer);
        this.#screens = this.#screens.filter((waiting) => waiting !== answer);
        resolve(screen);
      };
      this.#screens.push(answer);
      void this.gone.then(() => answer(undefined));
      this.#control.send('screen');
    });
  }

  /** What the silent command waits for, as last found; undefined when not known to wait. */
  get waiting(): WaitingFinding | undefined {
    return this.#waiting;
  }

  /** Calls `listener` with each change of finding; returns the unsubscribe. */
  onWaiting(listener: (finding: WaitingFinding | undefined) => void): () => void {
    this.#onWaiting.add(listener);
    return () => this.#onWaiting.delete(listener);
  }

  #setWaiting(finding: WaitingFinding | undefined): void {
    this.#waiting = finding;
    for (const listener of this.#onWaiting) listener(finding);
  }
}
