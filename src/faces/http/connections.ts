// Open connections stay below the process's descriptor limit, with a reserve left for what the sessions' commands
// open (pipes, spill files, sandboxes): at the cap a new connection sheds the oldest one that never sent a whole
// request (a client that stopped talking), else the oldest idle keep-alive one, and is refused only when every
// connection is serving a request. A client whose connection was shed connects again, and gets in.
import { readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Descriptors kept for commands at least, and as a share of the limit. */
const MIN_RESERVE = 256;
const RESERVE_SHARE = 0.25;

/**
 * The default cap: the soft RLIMIT_NOFILE, less the descriptors open now (the runtime's workers and listeners), less
 * the reserve (a quarter of the limit, at least 256). Infinity when the limit cannot be read or is unlimited.
 */
export function defaultMaxConnections(reserve?: number): number {
  const limit = openFileLimit();
  if (limit === undefined) return Number.POSITIVE_INFINITY;
  const inUse = readdirSync('/proc/self/fd').length;
  return Math.max(1, limit - inUse - (reserve ?? Math.max(MIN_RESERVE, Math.floor(limit * RESERVE_SHARE))));
}

/** The soft limit on open files, from /proc/self/limits (Node has no getrlimit). */
function openFileLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    const value = Number(line?.[1]);
    return Number.isFinite(value) && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

export class ConnectionGuard {
  readonly #max: number;
  /** Connections that never sent a whole request, oldest first. */
  readonly #fresh = new Set<Socket>();
  /** Keep-alive connections between requests, longest idle first. */
  readonly #idle = new Set<Socket>();
  #open = 0;
  /** Connections shed or refused so far. */
  shed = 0;

  constructor(server: Server, max: number) {
    this.#max = max;
    server.on('connection', (socket: Socket) => this.#connected(socket));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.#serving(req.socket, res));
  }

  get open(): number {
    return this.#open;
  }

  #connected(socket: Socket): void {
    if (this.#open >= this.#max) {
      const victim = this.#fresh.values().next().value ?? this.#idle.values().next().value;
      this.shed += 1;
      if (victim === undefined) return void socket.destroy();
      this.#forget(victim);
      victim.destroy();
    }
    this.#open += 1;
    this.#fresh.add(socket);
    socket.once('close', () => {
      this.#forget(socket);
      this.#open -= 1;
    });
  }

  #serving(socket: Socket, res: ServerResponse): void {
    this.#fresh.delete(socket);
    this.#idle.delete(socket);
    res.once('close', () => {
      if (!socket.destroyed) this.#idle.add(socket);
    });
  }

  /** Takes a socket out of the sheddable sets. */
  #forget(socket: Socket): void {
    this.#fresh.delete(socket);
    this.#idle.delete(socket);
  }
}
