// The HTTP face's MCP sessions: each one an MCP server, its transport, its runtime session and its event store,
// opened on initialize and closed by the client, by idle expiry or at shutdown.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Runtime } from '../../runtime/runtime.js';
import type { CallEvent, Session } from '../../runtime/session.js';
import { SessionEventStore, type EventStoreLimits } from '../http/event-store.js';
import type { CommandCounter } from '../http/limits.js';
import type { CloseReason, Observer } from '../http/observer.js';
import type { SessionRoutes } from './routes.js';
import { createMcpServer } from './server.js';

export interface HttpSession {
  readonly id: string;
  readonly server: Server;
  readonly transport: StreamableHTTPServerTransport;
  readonly session: Session;
  readonly store: SessionEventStore;
  readonly openedAt: number;
  lastRequestAt: number;
  callsInFlight: number;
  closeReason?: CloseReason;
}

export interface SessionsOptions {
  runtime: Runtime;
  routes: SessionRoutes;
  cwd: string;
  counter: CommandCounter;
  observer: Required<Observer>;
  events?: EventStoreLimits;
  maxBodyBytes?: number;
  /** A refusal for a tool call before the command caps are judged (a draining server). */
  gate: () => string | undefined;
  /** The idle clock, in milliseconds. Default Date.now. */
  clock?: () => number;
  /** How often a call that carries a progress token is told about. */
  progressIntervalMs?: number;
}

export class HttpSessions {
  readonly #open = new Map<string, HttpSession>();
  readonly #options: SessionsOptions;
  #callsInFlight = 0;
  #quiet: (() => void)[] = [];
  /** Initialize requests being answered: they count against the session limit before they are sessions. */
  opening = 0;

  constructor(options: SessionsOptions) {
    this.#options = options;
  }

  #now(): number {
    return (this.#options.clock ?? Date.now)();
  }

  get size(): number {
    return this.#open.size;
  }

  get callsInFlight(): number {
    return this.#callsInFlight;
  }

  /** Resolves once no tool call is in flight (at once when none is). */
  whenNoCalls(): Promise<void> {
    if (this.#callsInFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#quiet.push(resolve));
  }

  get(id: string): HttpSession | undefined {
    return this.#open.get(id);
  }

  ids(): string[] {
    return [...this.#open.keys()];
  }

  /** Bytes the sessions' event stores keep. */
  retainedBytes(): number {
    let bytes = 0;
    for (const entry of this.#open.values()) bytes += entry.store.size.bytes;
    return bytes;
  }

  all(): HttpSession[] {
    return [...this.#open.values()];
  }

  /** Answers an initialize request with a new session (or the transport's own error for anything else). */
  async open(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { runtime, routes, cwd, observer } = this.#options;
    const id = randomUUID();
    const session = runtime.session({ id, cwd });
    const store = new SessionEventStore(this.#options.events);
    const now = Date.now();
    let entry: HttpSession | undefined;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      eventStore: store,
      maxRequestBodySize: this.#options.maxBodyBytes,
      onsessioninitialized: () => {
        entry = { id, server, transport, session, store, openedAt: now, lastRequestAt: this.#now(), callsInFlight: 0 };
        this.#open.set(id, entry);
        observer.sessionOpened(id);
      },
    });
    const offCalls = this.track(session, (event) => {
      if (!entry) return;
      if (event.type === 'started') {
        entry.callsInFlight += 1;
      } else {
        entry.callsInFlight -= 1;
        // Idle time counts from the end of the last call, not from its request: a long call is activity.
        entry.lastRequestAt = this.#now();
      }
    });
    const server = createMcpServer({
      runtime,
      session,
      routes,
      progressIntervalMs: this.#options.progressIntervalMs,
      admit: (tool) => this.admit(id, tool),
      onClose: () => {
        offCalls();
        if (this.#open.get(id) === entry && entry) {
          this.#open.delete(id);
          observer.sessionClosed(id, entry.closeReason ?? 'closed', Date.now() - entry.openedAt);
        }
        void session.close();
      },
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } finally {
      // Anything but a successful initialize leaves the transport without a session: nothing to keep.
      if (transport.sessionId === undefined) {
        offCalls();
        await server.close().catch(() => {});
        await session.close();
      }
    }
  }

  /**
   * Counts a runtime session's calls (command caps, calls in flight for drain and metrics, the observers): every
   * MCP session's, and every 2026-07-28 state's. Returns the unsubscribe function.
   */
  track(session: Session, each?: (event: CallEvent) => void): () => void {
    const { counter, observer } = this.#options;
    return session.onCall((event) => {
      if (event.type === 'started') {
        if (event.tool === 'bash') counter.started(session.id);
        this.#callsInFlight += 1;
      } else {
        if (event.tool === 'bash') counter.ended(session.id);
        this.#callsInFlight -= 1;
        if (this.#callsInFlight === 0) for (const resolve of this.#quiet.splice(0)) resolve();
      }
      each?.(event);
      observer.call(event);
    });
  }

  /** A refusal for a tool call of session `id` (a draining server, a command cap); undefined admits it. */
  admit(id: string, tool: string): string | undefined {
    const { counter, observer, gate } = this.#options;
    const closed = gate();
    if (closed !== undefined) return closed;
    const refusal = counter.admit(id, tool);
    if (refusal === undefined) return undefined;
    observer.refused(refusal.cap, id);
    return refusal.message;
  }

  /** Passes a request to its session's transport, keeping the idle clock and the standalone stream's cursor. */
  async handle(entry: HttpSession, req: IncomingMessage, res: ServerResponse): Promise<void> {
    entry.lastRequestAt = this.#now();
    if (req.method === 'GET' && req.headers['last-event-id'] === undefined) {
      // Notices stored while no stream was open reach the client as a replay on its next stream.
      const cursor = entry.store.openStandalone();
      if (cursor !== undefined) req.headers['last-event-id'] = cursor;
      res.once('close', () => entry.store.closeStandalone());
    }
    await entry.transport.handleRequest(req, res);
  }

  /** Closes the sessions idle longer than `idleMs` with no call in flight; returns how many. */
  expireIdle(idleMs: number, now = this.#now()): number {
    let expired = 0;
    for (const entry of this.#open.values()) {
      if (entry.callsInFlight === 0 && now - entry.lastRequestAt >= idleMs) {
        void this.close(entry, 'expired');
        expired += 1;
      }
    }
    return expired;
  }

  /** Closes one session: its transport, its jobs and processes, its spill files. */
  async close(entry: HttpSession, reason: CloseReason): Promise<void> {
    entry.closeReason ??= reason;
    await entry.server.close().catch(() => {});
    await entry.session.close();
  }

  async closeAll(reason: CloseReason): Promise<void> {
    await Promise.all(this.all().map((entry) => this.close(entry, reason)));
  }
}
