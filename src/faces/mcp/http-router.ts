// Where the HTTP face sends each request: the probes, the site and token checks, OAuth metadata, /metrics, the web
// console, and the MCP endpoint (a 2026-07-28 request, a 2025 session's request, or a new 2025 session).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Access } from '../http/access.js';
import type { Metrics } from '../http/metrics.js';
import type { Observer } from '../http/observer.js';
import { replyError, replyText, RPC } from '../http/reply.js';
import type { ResourceMetadata } from '../http/resource-metadata.js';
import type { ModernEndpoint } from './modern/endpoint.js';
import type { HttpSessions } from './sessions.js';

/** How long a refused client is asked to wait before it tries again. */
const RETRY_AFTER_SECONDS = '5';

export type ConsoleRequestHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface RouterOptions {
  endpoint: string;
  access: Access;
  resourceMetadata: ResourceMetadata;
  metrics: Metrics | undefined;
  consoleHandler: ConsoleRequestHandler | undefined;
  sessions: HttpSessions;
  modern: ModernEndpoint;
  observer: Required<Observer>;
  maxSessions: number;
  /** True once the server drains: no new sessions or calls. */
  draining: () => boolean;
  /** True when one more session would pass the session limit. */
  full: () => boolean;
}

export class HttpRouter {
  readonly #o: RouterOptions;

  constructor(options: RouterOptions) {
    this.#o = options;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { access, resourceMetadata, metrics, consoleHandler, endpoint } = this.#o;
    const url = new URL(req.url ?? '/', 'http://localhost');
    // Probes need no token: they tell a platform whether to route here, and reveal nothing else.
    if (url.pathname === '/healthz') return replyText(res, 200, 'ok\n');
    if (url.pathname === '/readyz') {
      if (this.#o.draining()) return replyText(res, 503, 'draining\n');
      if (this.#o.full()) return replyText(res, 503, `at the session limit (${this.#o.maxSessions})\n`);
      return replyText(res, 200, 'ready\n');
    }
    if (!access.checkSite(req, res)) return;
    if (resourceMetadata.serves(url.pathname)) return resourceMetadata.reply(req, res);
    const metricsPath = metrics !== undefined && url.pathname === '/metrics';
    // A console that judges access itself (its sign-in form, then a cookie that is not the token) gets its requests
    // unchecked; the MCP endpoint and /metrics take the bearer token only.
    if (consoleHandler && isJudging(consoleHandler) && url.pathname !== endpoint && !metricsPath) return consoleHandler(req, res);
    if (!access.checkToken(req, res)) return;
    if (url.pathname === endpoint) return this.#mcp(req, res);
    if (metricsPath && (req.method === 'GET' || req.method === 'HEAD')) {
      return replyText(res, 200, await metrics.registry.metrics(), metrics.registry.contentType);
    }
    if (consoleHandler) return consoleHandler(req, res);
    return replyError(res, 404, RPC.serverError, `Not found: ${url.pathname}`);
  }

  async #mcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { modern, sessions, observer } = this.#o;
    if (modern.claims(req)) {
      if (this.#o.draining()) {
        observer.refused('draining');
        return replyError(res, 503, RPC.overloaded, 'Service unavailable: this server is shutting down', { 'retry-after': RETRY_AFTER_SECONDS });
      }
      return modern.handle(req, res);
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const entry = sessions.get(sessionId);
      // An unknown id may be one that expired, or one another instance serves (lost affinity): the client starts over.
      if (!entry) return replyError(res, 404, RPC.sessionNotFound, 'Session not found');
      return sessions.handle(entry, req, res);
    }
    if (req.method !== 'POST') return replyError(res, 400, RPC.serverError, 'Bad Request: Mcp-Session-Id header is required');
    const refusal = this.#openRefusal();
    if (refusal) return replyError(res, 503, RPC.overloaded, refusal, { 'retry-after': RETRY_AFTER_SECONDS });
    sessions.opening += 1;
    try {
      await sessions.open(req, res);
    } finally {
      sessions.opening -= 1;
    }
  }

  /** Why a new 2025 session cannot open now (a draining server, the session limit), counted as a refusal. */
  #openRefusal(): string | undefined {
    if (this.#o.draining()) {
      this.#o.observer.refused('draining');
      return 'Service unavailable: this server is shutting down and opens no new sessions';
    }
    if (this.#o.full()) {
      this.#o.observer.refused('session-limit');
      return `Service unavailable: this server is at its session limit (${this.#o.maxSessions}); close an unused session or retry later`;
    }
    return undefined;
  }
}

function isJudging(handler: object): boolean {
  return (handler as { judgesAccess?: unknown }).judgesAccess === true;
}
