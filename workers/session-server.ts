// A session sandbox's fork server as a worker reaches it: through the socket the main thread owns (its number is
// valid on every thread), never replaced from here; the main thread rebuilds a sandbox that died.
import { constants } from 'node:os';
import { supervisionErrors } from '../src/contract/index.js';
import { errnoName, sendWhenRoom, type Launcher } from './fork-server.js';
import { launchThrough, type RunnerLink } from './runner-link.js';
import type { RunnerRequest } from '../src/executor/wire/request.js';

export class SessionServer implements Launcher {
  readonly #socket: number;

  constructor(socket: number) {
    this.#socket = socket;
  }

  launch(request: RunnerRequest, out: number, err: number, first: string): Promise<RunnerLink> {
    return launchThrough((fds) => this.#send(fds), request, out, err, first);
  }

  /** Its commands cannot stop it (the first process of their pid namespace, or out of their signals' scope). */
  wake(): void {}

  async #send(fds: number[]): Promise<void> {
    // The main thread holds the socket open for as long as this launch lasts.
    const errno = await sendWhenRoom(() => this.#socket, fds);
    if (errno !== 0) throw new Error(supervisionErrors.sessionServer(errnoName(errno ?? constants.errno.EBADF)));
  }
}
