// One command handed to a supervisor worker: its task, its comlink control port, and its place among live commands.
import { MessageChannel } from 'node:worker_threads';
import type { Piscina } from 'piscina';
import * as Comlink from 'comlink/dist/esm/comlink.mjs';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import type { KillCause, SupervisorControl, SupervisorResult, SupervisorTask } from './protocol.js';
import { track, type LiveCommand } from './live-groups.js';

export type LaunchResult = SupervisorResult | { kind: 'crashed'; error: string };

export class Launch {
  /** Settles when bash has ended and its output drained; never rejects. */
  readonly result: Promise<LaunchResult>;
  /** Settles when the runner and every descendant it reaped have ended (or the worker is gone). */
  readonly gone: Promise<void>;
  #control: Comlink.Remote<SupervisorControl>;
  #port: import('node:worker_threads').MessagePort;
  #live: LiveCommand | undefined;
  #released = false;

  constructor(pool: Piscina, task: Omit<SupervisorTask, 'port'>) {
    const { port1, port2 } = new MessageChannel();
    this.#port = port1;
    this.#control = Comlink.wrap<SupervisorControl>(nodeEndpoint(port1 as never));
    const run: Promise<SupervisorResult> = pool.run({ ...task, port: port2 }, { transferList: [port2] as never });
    // A proxy call into a worker that died would wait forever: every wait is raced against the task itself.
    const crashed = run.then(
      () => undefined,
      (error: unknown) => ({ kind: 'crashed' as const, error: message(error) }),
    );
    this.result = run.catch((error: unknown) => ({ kind: 'crashed', error: message(error) }));
    this.gone = this.#watch(crashed);
  }

  kill(cause: KillCause): void {
    if (this.#released) return;
    this.#control.kill(cause).catch(() => {});
  }

  /** Drops the lifeline: the runner kills whatever descendants are left. */
  async release(): Promise<void> {
    if (this.#released) return;
    await Promise.race([this.#control.release(), this.result]).catch(() => {});
    await this.gone;
  }

  async #watch(crashed: Promise<{ kind: 'crashed' } | undefined>): Promise<void> {
    // Only a worker crash ends these waits early (its runner lost the lifeline and kills everything); a task that
    // ended cleanly does not, since replies on the control port may arrive after the task's own result.
    const untilCrash = crashed.then((c) => (c ? null : new Promise<never>(() => {})));
    const spawned = await Promise.race([this.#control.spawned(), untilCrash]).catch(() => null);
    let untrack: (() => void) | undefined;
    if (spawned) {
      this.#live = spawned;
      untrack = track(spawned);
      await Promise.race([this.#control.runnerExited(), untilCrash]).catch(() => {});
    }
    untrack?.();
    this.#released = true;
    this.#control[Comlink.releaseProxy]();
    this.#port.close();
  }

  /** The live process group and runner, while they run. */
  get live(): LiveCommand | undefined {
    return this.#released ? undefined : this.#live;
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
