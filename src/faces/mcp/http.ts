// The MCP server over streamable HTTP (node:http): token, limits, idle expiry, drain, health, metrics and logs; each
// MCP session is its own runtime session, closed with it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino, type Logger } from 'pino';
import { admissionErrors } from '../../contract/index.js';
import type { RuntimeOptions } from '../../runtime/options.js';
import { createRuntime, type Runtime } from '../../runtime/runtime.js';
import { Access, bracketed, isLoopback } from '../http/access.js';
import { serverBudget, type RetainedStore } from '../http/budget.js';
import type { EventStoreLimits } from '../http/event-store.js';
import { CommandCounter, type CommandLimits } from '../http/limits.js';
import { logObserver } from '../http/log.js';
import { createMetrics } from '../http/metrics.js';
import { fanOut, type Observer } from '../http/observer.js';
import { replyError, replyText, RPC } from '../http/reply.js';
import { closeIfBodyUnread } from '../http/unread-body.js';
import { checkTokenValue, generateToken } from '../http/token.js';
import { ResourceMetadata, type ResourceMetadataOptions } from '../http/resource-metadata.js';
import { faceRuntimeOptions } from '../runtime-options.js';
import { SessionRoutes } from './routes.js';
import { checkProgressInterval } from './progress.js';
import { HttpSessions } from './sessions.js';
import { ShellringError } from '../../errors.js';
import { checkInstanceId, ModernEndpoint } from './modern/endpoint.js';

export interface HttpServeOptions extends CommandLimits {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: an ephemeral port, reported in `url`. */
  port?: number;
  /** Default `/mcp`. */
  path?: string;
  /** Every session's working directory. Default: the launch directory. */
  cwd?: string;
  sandboxMode?: string;
  runtimeOptions?: RuntimeOptions;
  /**
   * Serve an existing runtime (left open on close). Its approvals reach MCP clients only if it was created with
   * `approval.request` = this server's `routes.approve` (and `approval.available` = `routes.available`, so escalation
   * is listed only to sessions someone can approve for); pass those `routes` here too.
   */
  runtime?: Runtime;
  routes?: SessionRoutes;
  /**
   * The bearer token every request must present (`Authorization: Bearer <token>`; the console's own
   * requests may come from a signed-in browser instead). Omitted: a random one is generated (see `HttpServer.token`), which is allowed only
   * on a loopback address.
   */
  token?: string;
  /** Origins allowed besides the server's own, exact `scheme://host[:port]`. */
  allowedOrigins?: string[];
  /** Directories confined commands see empty, such as the one holding the token file. */
  hiddenPaths?: string[];
  /**
   * Serves every path other than the MCP endpoint, /healthz, /readyz and /metrics (a web console). It runs after
   * the Host and Origin checks; the token check comes first too, unless the handler has `judgesAccess: true` (as
   * createConsoleHandler's does: it signs browsers in and judges cookie and token itself).
   */
  consoleHandler?: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;
  /** Open MCP sessions at most; more get 503. Default 500. */
  maxSessions?: number;
  /** A session with no request for this long and no call in flight is closed. Default 30 minutes; 0 never. */
  idleTimeoutMs?: number;
  /** The clock idle expiry reads, in milliseconds (tests inject one). Default Date.now. */
  clock?: () => number;
  /** Largest request body. Default 4 MiB. */
  maxBodyBytes?: number;
  /** A client must send its request headers within this time. Default 10000. */
  headersTimeoutMs?: number;
  /** A client must send its whole request (headers and body) within this time. Default 30000. */
  requestTimeoutMs?: number;
  /** Bounds of each session's event store (what a reconnecting client can resume). */
  events?: EventStoreLimits;
  /** Other stores that keep bytes per session (a console's timeline): counted on /metrics and in the budget. */
  retainedStores?: RetainedStore[];
  /** Where structured logs go (pino). Default: no logs. */
  logger?: Logger;
  /** Log each bash call's command text. Default false. */
  logCommands?: boolean;
  /** More observers of sessions and calls (a console's timeline). */
  observers?: Observer[];
  /** Serve GET /metrics (Prometheus text, token required). Default true. */
  metrics?: boolean;
  /** How often a call that carries a progress token is told about (1 to 20000 ms). Default 15000. */
  progressIntervalMs?: number;
  /**
   * OAuth protected-resource metadata (RFC 9728), served without a token at /.well-known/oauth-protected-resource
   * (and that path followed by the endpoint's); the bearer token above stays what this server checks.
   */
  oauth?: ResourceMetadataOptions;
  /**
   * This instance's name in 2026-07-28 session handles, task ids and approval states (letters, digits, `_`, `-`),
   * so a load balancer can route a request about them to this instance. Default: a random one.
   */
  instanceId?: string;
}

export interface HttpServer {
  url: string;
  host: string;
  port: number;
  runtime: Runtime;
  /** The token requests must present. */
  token: string;
  /** True when the token was generated here (no `token` option). */
  tokenGenerated: boolean;
  /** Open MCP sessions, by MCP session id (which is also the runtime session id). */
  sessionIds(): string[];
  /** True once drain() or close() started: no new sessions, /readyz answers 503. */
  readonly draining: boolean;
  /**
   * Stops taking new sessions and new calls, waits until the calls in flight finish (at most `timeoutMs`,
   * default 30000), then closes everything. Resolves with the number of calls still running at the deadline.
   */
  drain(timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

export const DEFAULT_MAX_SESSIONS = 500;
export const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60 * 1000;
export const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;
/** How long a refused client is asked to wait before it tries again. */
const RETRY_AFTER_SECONDS = '5';

export async function serveHttp(options: HttpServeOptions = {}): Promise<HttpServer> {
  if (options.runtime && (options.runtimeOptions || options.sandboxMode !== undefined)) {
    throw new ShellringError('SHELLRING_INVALID_CONFIG', 'serveHttp: pass either an existing runtime or options to create one, not both');
  }
  const host = options.host ?? '127.0.0.1';
  if (options.token === undefined && !isLoopback(host)) {
    throw new ShellringError(
      'SHELLRING_NO_TOKEN',
      `refusing to serve on ${host} without an explicit token: anyone who can reach that address could run commands; give a token (--token-file FILE or SHELLRING_TOKEN)`,
    );
  }
  const token = options.token === undefined ? generateToken() : checkTokenValue(options.token, 'the token option');
  checkInstanceId(options.instanceId);
  const progressIntervalMs = checkProgressInterval(options.progressIntervalMs);
  const endpoint = options.path ?? '/mcp';
  // The port is known once listening; a request without a usable Host header is answered after that.
  let port = 0;
  const resourceMetadata = new ResourceMetadata(options.oauth, { endpoint, fallbackHost: () => `${bracketed(host)}:${port}` });
  const access = new Access({ host, token, allowedOrigins: options.allowedOrigins, challengeParameters: (req) => resourceMetadata.challengeParameter(req) });
  const consoleHandler = options.consoleHandler;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const routes = options.routes ?? new SessionRoutes();
  const retainedStores = options.retainedStores ?? [];
  const owned = options.runtime === undefined;
  const runtime =
    options.runtime ??
    (await createRuntime(
      faceRuntimeOptions(options.runtimeOptions ?? {}, { sandboxMode: options.sandboxMode, approve: routes.approve, available: routes.available }),
    ));
  for (const path of options.hiddenPaths ?? []) runtime.sandbox?.hide(path);
  const unlisten = routes.listen(runtime);
  const logger = options.logger ?? pino({ enabled: false });
  let draining = false;
  // The metrics read the session table lazily, at scrape time, after it exists.
  const metrics =
    options.metrics === false
      ? undefined
      : createMetrics(runtime, {
          sessions: () => sessions.size,
          callsInFlight: () => sessions.callsInFlight,
          retained: () => ({
            events: sessions.retainedBytes(),
            ...Object.fromEntries(retainedStores.map((store) => [store.name, store.bytes()])),
          }),
          retainedBudget: serverBudget(maxSessions, options.events, retainedStores),
        });
  const observer = fanOut([
    logObserver(logger, { logCommands: options.logCommands }),
    ...(metrics ? [metrics.observer] : []),
    ...(options.observers ?? []),
  ]);
  const sessions = new HttpSessions({
    runtime,
    routes,
    cwd: options.cwd ?? process.cwd(),
    counter: new CommandCounter(runtime, options),
    observer,
    events: options.events,
    maxBodyBytes: options.maxBodyBytes,
    clock: options.clock,
    progressIntervalMs,
    gate: () => {
      if (!draining) return undefined;
      observer.refused('draining');
      return admissionErrors.draining;
    },
  });

  // 2026-07-28 requests: no protocol sessions; state by handle or principal, in the same runtime.
  const modern = new ModernEndpoint({
    runtime,
    routes,
    cwd: options.cwd ?? process.cwd(),
    instanceId: options.instanceId,
    maxBodyBytes: options.maxBodyBytes,
    progressIntervalMs,
    sessions,
    clock: options.clock,
  });

  function full(): boolean {
    return sessions.size + sessions.opening >= maxSessions;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    // Probes need no token: they tell a platform whether to route here, and reveal nothing else.
    if (url.pathname === '/healthz') return replyText(res, 200, 'ok\n');
    if (url.pathname === '/readyz') {
      if (draining) return replyText(res, 503, 'draining\n');
      if (full()) return replyText(res, 503, `at the session limit (${maxSessions})\n`);
      return replyText(res, 200, 'ready\n');
    }
    if (!access.checkSite(req, res)) return;
    if (resourceMetadata.serves(url.pathname)) return resourceMetadata.reply(req, res);
    const metricsPath = metrics !== undefined && url.pathname === '/metrics';
    // A console that judges access itself (its sign-in form, then a cookie that is not the token) gets its requests
    // unchecked; the MCP endpoint and /metrics take the bearer token only.
    if (consoleHandler && isJudging(consoleHandler) && url.pathname !== endpoint && !metricsPath) return consoleHandler(req, res);
    if (!access.checkToken(req, res)) return;
    if (url.pathname === endpoint) return mcp(req, res);
    if (metricsPath && (req.method === 'GET' || req.method === 'HEAD')) {
      return replyText(res, 200, await metrics.registry.metrics(), metrics.registry.contentType);
    }
    if (consoleHandler) return consoleHandler(req, res);
    return replyError(res, 404, RPC.serverError, `Not found: ${url.pathname}`);
  }

  async function mcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (modern.claims(req)) {
      if (draining) {
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
    if (draining) {
      observer.refused('draining');
      return replyError(res, 503, RPC.overloaded, 'Service unavailable: this server is shutting down and opens no new sessions', {
        'retry-after': RETRY_AFTER_SECONDS,
      });
    }
    if (full()) {
      observer.refused('session-limit');
      return replyError(
        res,
        503,
        RPC.overloaded,
        `Service unavailable: this server is at its session limit (${maxSessions}); close an unused session or retry later`,
        { 'retry-after': RETRY_AFTER_SECONDS },
      );
    }
    sessions.opening += 1;
    try {
      await sessions.open(req, res);
    } finally {
      sessions.opening -= 1;
    }
  }

  const http = createServer(
    {
      headersTimeout: options.headersTimeoutMs ?? 10_000,
      requestTimeout: options.requestTimeoutMs ?? 30_000,
      // The timeouts above are enforced on this tick; Node's default (30 s) would let a slow client stay far longer.
      connectionsCheckingInterval: 1000,
      // Longer than any client's or proxy's idle keep-alive: with Node's 5 s, a busy client reusing a connection the
      // server is just closing gets ECONNRESET on a POST it cannot safely retry.
      keepAliveTimeout: 65_000,
    },
    (req, res) => {
      closeIfBodyUnread(req, res);
      handle(req, res).catch((error: unknown) => {
        logger.error({ event: 'request.failed', err: error }, 'request failed');
        replyError(res, 500, RPC.internal, `Internal error: ${(error as Error)?.message ?? String(error)}`);
      });
    },
  );
  // A client that sends garbage, or is too slow, loses its own connection and nothing else.
  http.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  port = (http.address() as AddressInfo).port;
  const sweep =
    idleTimeoutMs > 0
      ? setInterval(() => {
          sessions.expireIdle(idleTimeoutMs);
          modern.expireIdle(idleTimeoutMs);
        }, Math.min(Math.max(idleTimeoutMs / 10, 50), 10_000))
      : undefined;
  sweep?.unref();

  let closing: Promise<void> | undefined;
  const close = () => {
    draining = true;
    closing ??= (async () => {
      if (sweep) clearInterval(sweep);
      const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
      // Open SSE streams would hold http.close() forever.
      http.closeAllConnections();
      await sessions.closeAll('shutdown');
      await modern.close();
      await stopped;
      unlisten();
      if (owned) await runtime.close();
    })();
    return closing;
  };

  return {
    url: `http://${bracketed(host)}:${port}${endpoint}`,
    host,
    port,
    runtime,
    token,
    tokenGenerated: options.token === undefined,
    sessionIds: () => sessions.ids(),
    get draining() {
      return draining;
    },
    async drain(timeoutMs = DEFAULT_DRAIN_TIMEOUT_MS) {
      draining = true;
      logger.info({ event: 'drain.started', sessions: sessions.size, callsInFlight: sessions.callsInFlight, timeoutMs }, 'draining');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([sessions.whenNoCalls(), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
      const left = sessions.callsInFlight;
      // Let the last responses leave before the connections close.
      await new Promise((resolve) => setTimeout(resolve, 100));
      await close();
      logger.info({ event: 'drain.finished', callsCut: left }, 'drained');
      return left;
    },
    close,
  };
}

function isJudging(handler: object): boolean {
  return (handler as { judgesAccess?: unknown }).judgesAccess === true;
}
