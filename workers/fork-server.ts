// A supervisor worker's fork server: one long-lived `shellring-runner --serve` that forks a runner per command, so
// no command pays for a fork of this Node process or an exec of the runner.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeSync } from 'node:fs';
import { Socket } from 'node:net';
import { constants } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadBinding } from '../src/native/loader.js';
import { supervisionErrors } from '../src/contract/index.js';
import { signal } from '../src/executor/sweep.js';
import { encode, type RunnerRequest } from '../src/executor/runner-request.js';
import type { ConfinementPlan } from '../src/executor/confinement-plan.js';

const binding = loadBinding();
/** How long a full request queue may last (the server stopped or wedged) before the server is replaced. */
export const STUCK_SERVER_MS = 2000;
/** Bytes of a runner's command line shown in ps (the kernel shows at most a page). */
const TITLE_ROOM = 4000;

/** What forks a command's runner: the worker's own fork server, or a session sandbox's. */
export interface Launcher {
  launch(request: RunnerRequest, out: number, err: number): Promise<Socket>;
  /** Wakes the server should a command have stopped it. */
  wake(): void;
}

/**
 * Has a runner forked for one command through `send` (which hands the server the runner's descriptors), with `out`
 * and `err` as its stdout and stderr (the caller keeps its own copies). Returns this side of the runner's status
 * socket: status lines arrive on it, and ending it is the runner's lifeline.
 */
export async function launchThrough(send: (fds: number[]) => Promise<void>, request: RunnerRequest, out: number, err: number): Promise<Socket> {
  const [mine, theirs] = binding.socketpair(false);
  let frame: Buffer;
  let sent: number;
  try {
    // The descriptors go first, so the server forks while this thread encodes the request: written straight after,
    // it waits in the socket long before the forked runner comes to read it.
    const handed = send([theirs, out, err]);
    try {
      frame = encode(request);
      sent = writeEarly(mine, frame);
    } finally {
      // Settled before `theirs` is closed, whatever failed: the server may not have been handed it yet.
      await handed;
    }
  } catch (error) {
    binding.closeFd(mine);
    throw error;
  } finally {
    binding.closeFd(theirs);
  }
  const socket = new Socket({ fd: mine, readable: true, writable: true });
  // A runner that died early shows as the end of its status lines; a failed write adds nothing to that.
  socket.on('error', () => {});
  if (sent < frame.length) socket.write(frame.subarray(sent));
  return socket;
}

export class ForkServer implements Launcher {
  readonly #runnerPath: string;
  #server: { child: ChildProcess; socket: number } | undefined;

  constructor(runnerPath: string) {
    this.#runnerPath = runnerPath;
  }

  launch(request: RunnerRequest, out: number, err: number): Promise<Socket> {
    const route = routeOf(request.plan);
    return launchThrough((fds) => this.#send(fds, route), request, out, err);
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

/** The byte that marks a request naming its session's cgroups (crates/runner/src/spawner.rs `ROUTE`). */
const ROUTE = 2;
/**
 * The payload that sends a command with session cgroups to its session's spawner in the server, which joined them
 * once (a process forked there is born in them; moving one in costs the kernel a grace period): `ROUTE`, then the
 * count of cgroups, the cgroups and the limits, each NUL-terminated. Undefined without cgroups.
 */
function routeOf({ cgroups, cgroupLimits }: ConfinementPlan): Buffer | undefined {
  if (cgroups.length === 0) return undefined;
  const text = [String(cgroups.length), ...cgroups, ...cgroupLimits].map((field) => `${field}\0`).join('');
  return Buffer.concat([Buffer.of(ROUTE), Buffer.from(text)]);
}

/** Writes what the socket takes now (it is non-blocking): all of a usual request; a larger one's rest goes later,
 * through the socket's own queue. Returns the bytes written. */
function writeEarly(fd: number, frame: Buffer): number {
  try {
    return writeSync(fd, frame);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return 0;
    throw error;
  }
}

export function errnoName(errno: number): string {
  return Object.entries(constants.errno).find(([, value]) => value === errno)?.[0] ?? supervisionErrors.errno(errno);
}
