// The local executor: commands run on this host, supervised by worker threads, in session cgroups and sandboxes.
import { loadBinding } from '../native/loader.js';
import { checkRunner, runnerPath, supervisorPath } from '../native/assets.js';
import { parseExecutorConfig, type ExecutorConfigInput } from './config.js';
import { SupervisorHosts } from './hosts.js';
import { SessionCgroups } from './cgroups.js';
import type { ExecSpec, SandboxHost } from './types.js';
import { SessionSandboxes } from './session-sandboxes.js';
import { ExecutorBase, within, type Placement } from './executor-base.js';
import { UNCONFINED } from './wire/plan.js';
import { ShellringError } from '../errors.js';
import { executorErrors } from '../contract/index.js';

/** How long closing waits for the workers to kill and remove every session's cgroups (each takes at most about a
 * second of kill-and-look rounds; they run at once). */
const CGROUP_CLEAR_MS = 5000;

export class LocalExecutor extends ExecutorBase {
  /** The shellring-runner executable every command starts through. */
  readonly runnerPath: string;
  /** The runner and spill places, for a sandbox confining this executor's commands. */
  readonly sandboxHost: SandboxHost;
  /** Per-session limits: cgroups where this host offers them, else a per-command process rlimit. */
  readonly cgroups: SessionCgroups;
  /** Each session's sandbox, where its confined calls run. */
  readonly sandboxes: SessionSandboxes;
  #closing: Promise<void> | undefined;

  constructor(input: ExecutorConfigInput = {}) {
    const config = parseExecutorConfig(input);
    // The addon must be loaded here before any worker: otherwise the last worker to exit could unload it with its state.
    loadBinding();
    const runner = config.runnerPath ? checkRunner(config.runnerPath) : runnerPath();
    let cgroups!: SessionCgroups;
    let sandboxes!: SessionSandboxes;
    super(
      config,
      () => {
        const hosts = new SupervisorHosts(supervisorPath(), config.threads);
        // A worker kills and removes a closing session's cgroups: no signal or cgroupfs call from this thread.
        cgroups = new SessionCgroups(config.limits, (dirs) => hosts.clearCgroups(dirs));
        sandboxes = new SessionSandboxes(runner);
        return hosts;
      },
      runner,
    );
    this.runnerPath = runner;
    this.cgroups = cgroups;
    this.sandboxes = sandboxes;
    const { spills } = this;
    this.sandboxHost = { runnerPath: runner, spillRoot: spills.root, spillDirFor: (sessionId) => spills.dirFor(sessionId) };
  }

  /** Kills what the session still runs (descendants included) and removes its spill files. */
  async closeSession(sessionId: string | undefined): Promise<void> {
    await this.endSession(sessionId);
    await this.sandboxes.closeSession(sessionId ?? '');
    await this.cgroups.closeSession(sessionId);
    await this.spills.closeSession(sessionId);
  }

  /** Kills everything still running, stops the workers, removes the spill directory. Every call resolves once
   * all of that is done. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.endAll();
      await this.sandboxes.close();
      // Before the workers stop: they end the cgroups. Bounded, as the commands' end is: a wedged worker must not
      // hold the close for ever (stopping the workers then settles its request).
      await within(this.cgroups.close(), CGROUP_CLEAR_MS);
      await this.hosts.close();
      await this.spills.close();
    })();
    return this.#closing;
  }

  /** The worker threads, for tests that must crash one. */
  get threads(): readonly import('node:worker_threads').Worker[] {
    return this.hosts.threads;
  }

  /** The call's sandbox plan with its session's cgroups and limits; a call in its session's own mode runs in the
   * session's sandbox, once that is ready (built at the session's first). */
  protected place(spec: ExecSpec): Placement | Promise<Placement> {
    const plan = { ...(spec.sandbox?.plan ?? UNCONFINED), ...this.cgroups.planFor(spec.sessionId) };
    if (!spec.sandbox?.shared || spec.sessionId === undefined) return { plan };
    const { mode, netKey } = spec.sandbox;
    return this.sandboxes.acquire(spec.sessionId, plan, netKey).then((held) => {
      // Network by name needs the session sandbox's namespace and listener: without them nothing runs.
      if (!held && netKey !== undefined) throw new ShellringError('SANDBOX_UNAVAILABLE', executorErrors.sandboxUnavailable(mode));
      return { plan, ...(held ? { held } : {}) };
    });
  }
}
