// The SSH executor: everything the local executor does on this side (requests, environment policy, captures,
// spill files, handles, sessions), with each session's commands run by a `shellring-runner --stdio` on its host.
import { LocalExecutor } from '../local.js';
import type { ExecutorConfigInput } from '../config.js';
import { RemoteHosts } from './remote-hosts.js';

export class RemoteExecutor extends LocalExecutor {
  readonly remote: RemoteHosts;
  /** Commands run on another host: no sandbox of this one can confine them. */
  override readonly sandboxHost: undefined = undefined;

  constructor(input: ExecutorConfigInput) {
    let remote!: RemoteHosts;
    super(input, (config) => (remote = new RemoteHosts(config)));
    this.remote = remote;
  }

  /** Ends what the session runs, then its runner on the host, freeing its place there. */
  override async closeSession(sessionId: string | undefined): Promise<void> {
    await super.closeSession(sessionId);
    await this.remote.closeSession(sessionId);
  }
}
