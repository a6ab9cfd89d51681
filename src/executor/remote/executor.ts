// The SSH executor: this side's part of every command (requests, environment policy, captures, spill files,
// handles, sessions) as for a local one, with each session's commands run by a `shellring-runner --stdio` on its host.
import { parseExecutorConfig, type ExecutorConfigInput } from '../config.js';
import { ExecutorBase, type Placement } from '../executor-base.js';
import { UNCONFINED } from '../wire/plan.js';
import type { ExecSpec } from '../types.js';
import { RemoteHosts } from './remote-hosts.js';

export class RemoteExecutor extends ExecutorBase {
  readonly remote: RemoteHosts;
  /** A host's cgroups are not ours to make: a session's process limit is the runner's per-command rlimit there. */
  readonly #nproc: number | null;
  #closing: Promise<void> | undefined;

  constructor(input: ExecutorConfigInput) {
    const config = parseExecutorConfig(input);
    const remote = new RemoteHosts(config);
    // Each host starts its own runner (its entry's runnerPath): none of this host's is involved.
    super(config, () => remote, '');
    this.remote = remote;
    this.#nproc = config.limits.processes;
  }

  /** Ends what the session runs, then its runner on the host (freeing its place there), then its spill files. */
  async closeSession(sessionId: string | undefined): Promise<void> {
    await this.endSession(sessionId);
    await this.remote.closeSession(sessionId);
    await this.spills.closeSession(sessionId);
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.endAll();
      await this.remote.close();
      await this.spills.close();
    })();
    return this.#closing;
  }

  protected place(spec: ExecSpec): Placement {
    return { plan: { ...(spec.sandbox?.plan ?? UNCONFINED), nproc: this.#nproc } };
  }
}
