// A session sandbox's fork server as a worker reaches it: through the socket the main thread owns (its number is
// valid on every thread), never replaced from here; the main thread rebuilds a sandbox that died.
import { constants } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Socket } from 'node:net';
import { loadBinding } from '../src/native/loader.js';
import { supervisionErrors } from '../src/contract/index.js';
import { errnoName, launchThrough, STUCK_SERVER_MS, type Launcher } from './fork-server.js';
import type { RunnerRequest } from '../src/executor/runner-request.js';

const binding = loadBinding();

export class SessionServer implements Launcher {
  readonly #socket: number;

  constructor(socket: number) {
    this.#socket = socket;
  }

  launch(request: RunnerRequest, out: number, err: number): Promise<Socket> {
    return launchThrough((fds) => this.#send(fds), request, out, err);
  }

  /** Its commands cannot stop it (the first process of their pid namespace, or out of their signals' scope). */
  wake(): void {}

  async #send(fds: number[]): Promise<void> {
    const since = Date.now();
    for (;;) {
      const errno = binding.sendFds(this.#socket, fds);
      if (errno === 0) return;
      if (errno !== constants.errno.EAGAIN || Date.now() - since > STUCK_SERVER_MS) {
        throw new Error(supervisionErrors.sessionServer(errnoName(errno)));
      }
      await sleep(1);
    }
  }
}
