// A supervisor worker's fork server: one long-lived `shellring-runner --serve` that forks a runner per command, so
// no command pays for a fork of this Node process or an exec of the runner.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { constants } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadBinding } from '../src/native/loader.js';
import { supervisionErrors } from '../src/contract/index.js';
import { signal } from '../src/executor/sweep.js';
import { routeOf, type RunnerRequest } from '../src/executor/wire/request.js';
import { launchThrough, type RunnerLink } from './runner-link.js';

const binding = loadBinding();
/** How long a full request queue may last (the server stopped or wedged) before the server is replaced. */
export const STUCK_SERVER_MS = 2000;
/** Bytes of a runner's command line shown in ps (the kernel shows at most a page). */
const TITLE_ROOM = 4000;

/** What forks a command's runner: the worker's own fork server, or a session sandbox's. */
export interface Launcher {
  launch(request: RunnerRequest, out: number, err: number, first: string): Promise<RunnerLink>;
  /** Wakes the server should a command have stopped it. */
  wake(): void;
}

export class ForkServer implements Launcher {
  readonly #runnerPath: string;
  #server: { child: ChildProcess; socket: number } | undefined;

  constructor(runnerPath: string) {
    this.#runnerPath = runnerPath;
  }

  launch(request: RunnerRequest, out: number, err: number, first: string): Promise<RunnerLink> {
    const route = routeOf(request.plan);
    return launchThrough((fds) => this.#send(fds, route), request, out, err, first);
  }

  /** Wakes the server should a command have stopped it. */
  wake(): void {
    if (this.#server?.child.pid !== undefined) signal(this.#server.child.pid, 'SIGCONT');
  }

  async #send(fds: number[], route: Buffer | undefined): Promise<void> {
    let replaced = false;
    for (;;) {
      const server = this.#server ?? (await this.#start());
      const errno = await sendWhenRoom(() => (this.#server === server ? server.socket : undefined), fds, () => this.wake(), route);
      if (errno === 0) return;
      // It ended while the request waited: the next server takes it.
      if (errno === undefined) continue;
      // Gone, or stuck for too long: the next request goes to a new server (the old one's queue fails to start).
      this.#drop(server);
      if (replaced) throw new Error(supervisionErrors.forkServer(errnoName(errno)));
      replaced = true;
    }
  }

  async #start(): Promise<{ child: ChildProcess; socket: number }> {
    const [mine, theirs] = binding.socketpair(true);
    let child: ChildProcess;
    try {
      // fd 3 is the server's socket. Spawned from this worker's thread: when the thread ends, so does the server.
      // Each request carries its command's environment; the server's own is room for its runners' titles.
      child = spawn(this.#runnerPath, ['--serve'], {
        stdio: ['ignore', 'ignore', 'inherit', theirs],
        env: { SHELLRING_TITLE_ROOM: ' '.repeat(TITLE_ROOM) },
      });
    } finally {
      binding.closeFd(theirs);
    }
    if (child.pid === undefined) {
      binding.closeFd(mine);
      const [error] = (await once(child, 'error')) as [Error];
      throw error;
    }
    const server = { child, socket: mine };
    child.on('error', () => {});
    child.once('exit', () => this.#drop(server));
    child.unref();
    this.#server = server;
    return server;
  }

  #drop(server: { child: ChildProcess; socket: number }): void {
    if (this.#server !== server) return;
    this.#server = undefined;
    binding.closeFd(server.socket);
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  }
}

/**
 * Hands `fds` over a server's socket (`socket()`, undefined once it is closed), calling `before` ahead of each try.
 * A request is sent at once unless the server's queue is full, which takes many requests it has not taken yet: it
 * is stopped or wedged. Such a request is tried again each millisecond, for at most STUCK_SERVER_MS.
 * Resolves 0 once sent, the errno that refused it (EAGAIN: the queue stayed full), or undefined when the socket
 * was closed meanwhile.
 */
export async function sendWhenRoom(
  socket: () => number | undefined,
  fds: number[],
  before?: () => void,
  payload?: Buffer,
): Promise<number | undefined> {
  const since = Date.now();
  for (;;) {
    const fd = socket();
    if (fd === undefined) return undefined;
    before?.();
    const errno = binding.sendFds(fd, fds, payload);
    if (errno !== constants.errno.EAGAIN || Date.now() - since > STUCK_SERVER_MS) return errno;
    await sleep(1);
  }
}

export function errnoName(errno: number): string {
  return Object.entries(constants.errno).find(([, value]) => value === errno)?.[0] ?? supervisionErrors.errno(errno);
}
