// One command handed to a supervisor host: its result, its end, and its place among live commands.
import type { LaunchListener, SupervisorHosts } from './hosts.js';
import type { KillCause, LiveCommand, SupervisorResult, SupervisorTask } from './protocol.js';
import { track } from './live-groups.js';

export type LaunchResult = SupervisorResult | { kind: 'crashed'; error: string };

export class Launch {
  /** Settles when bash has ended and its output drained; never rejects. */
  readonly result: Promise<LaunchResult>;
  /** Settles when the runner and every descendant it reaped have ended (or the worker is gone). */
  readonly gone: Promise<void>;
  #control: { kill(cause: KillCause): void; release(): void };
  #live: LiveCommand | undefined;
  #untrack: (() => void) | undefined;
  #ended = false;

  constructor(hosts: SupervisorHosts, task: SupervisorTask) {
    let settle!: (result: LaunchResult) => void;
    let markGone!: () => void;
    this.result = new Promise((resolve) => (settle = resolve));
    this.gone = new Promise((resolve) => (markGone = resolve));
    const end = () => {
      this.#ended = true;
      this.#untrack?.();
      markGone();
    };
    const listener: LaunchListener = {
      spawned: (live) => {
        if (!live || this.#ended) return;
        this.#live = live;
        this.#untrack = track(live);
      },
      result: settle,
      gone: end,
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

  /** The live process group and runner, while they run. */
  get live(): LiveCommand | undefined {
    return this.#ended ? undefined : this.#live;
  }
}
