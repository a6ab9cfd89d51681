// The MCP server over streamable HTTP (node:http): token, limits, idle expiry, drain, health, metrics and logs; each
// MCP session is its own runtime session, closed with it.
import { pino, type Logger } from 'pino';
import type { RuntimeOptions } from '../../runtime/options.js';
import { createRuntime, type Runtime } from '../../runtime/runtime.js';
import { Access, bracketed, isLoopback } from '../http/access.js';
import { AuthBackoff } from '../http/auth-backoff.js';
import type { RetainedStore } from '../http/budget.js';
import type { EventStoreLimits } from '../http/event-store.js';
import type { CommandLimits } from '../http/limits.js';
import { listen, type Listener } from '../http/listener.js';
import { logBackoff } from '../http/log.js';
import type { Observer } from '../http/observer.js';
import { checkTokenValue, generateToken } from '../http/token.js';
import { ResourceMetadata, type ResourceMetadataOptions } from '../http/resource-metadata.js';
import { faceRuntimeOptions } from '../runtime-options.js';
import { SessionRoutes } from './routes.js';
import { checkProgressInterval } from './progress.js';
import { ShellringError } from '../../errors.js';
import { checkInstanceId } from './modern/endpoint.js';
import { HttpRouter, type ConsoleRequestHandler } from './http-router.js';
import { composeSessions } from './http-parts.js';
import type { HttpSessions } from './sessions.js';
import type { ModernEndpoint } from './modern/endpoint.js';

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
  /**
   * Slows down addresses that present wrong credentials (429 with Retry-After, a log line per block). Default: one of
   * this server's own, on `clock`; pass the console's too, so sign-ins and bearer tokens count together.
   */
  authBackoff?: AuthBackoff;
  /** Directories confined commands see empty, such as the one holding the token file. */
  hiddenPaths?: string[];
  /**
   * Serves every path other than the MCP endpoint, /healthz, /readyz and /metrics (a web console). It runs after
   * the Host and Origin checks; the token check comes first too, unless the handler has `judgesAccess: true` (as
   * createConsoleHandler's does: it signs browsers in and judges cookie and token itself).
   */
  consoleHandler?: ConsoleRequestHandler;
  /** Open MCP sessions at most; more get 503. Default 500. */
  maxSessions?: number;
  /** A session with no request for this long and no call in flight is closed. Default 30 minutes; 0 never. */
  idleTimeoutMs?: number;
  /** The clock idle expiry (and the default auth back-off) reads, in milliseconds (tests inject one). Default Date.now. */
  clock?: () => number;
  /** Largest request body. Default 4 MiB. */
  maxBodyBytes?: number;
  /** A client must send its request headers within this time. Default 10000. */
  headersTimeoutMs?: number;
  /** A client must send its whole request (headers and body) within this time. Default 30000. */
  requestTimeoutMs?: number;
  /**
   * Open connections at most; at the cap a new one sheds the oldest that never sent a whole request, else the oldest
   * idle one (see connections.ts). Default: the descriptor limit less those open at start less `descriptorReserve`.
   */
  maxConnections?: number;
  /** Descriptors kept for the sessions' commands below the limit. Default a quarter of the limit, at least 256. */
  descriptorReserve?: number;
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

export async function serveHttp(options: HttpServeOptions = {}): Promise<HttpServer> {
  const host = options.host ?? '127.0.0.1';
  const token = checkOptions(options, host);
  checkInstanceId(options.instanceId);
  const progressIntervalMs = checkProgressInterval(options.progressIntervalMs);
  const endpoint = options.path ?? '/mcp';
  const logger = options.logger ?? pino({ enabled: false });
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const routes = options.routes ?? new SessionRoutes();
  const runtime =
    options.runtime ??
    (await createRuntime(
      faceRuntimeOptions(options.runtimeOptions ?? {}, { sandboxMode: options.sandboxMode, approve: routes.approve, available: routes.available }),
    ));
  for (const path of options.hiddenPaths ?? []) runtime.sandbox?.hide(path);
  const unlisten = routes.listen(runtime);
  // The port is known once listening; a request without a usable Host header is answered after that.
  let listener: Listener | undefined;
  const resourceMetadata = new ResourceMetadata(options.oauth, { endpoint, fallbackHost: () => `${bracketed(host)}:${listener?.port ?? 0}` });
  const access = new Access({
    host,
    token,
    allowedOrigins: options.allowedOrigins,
    challengeParameters: (req) => resourceMetadata.challengeParameter(req),
    backoff: options.authBackoff ?? new AuthBackoff({ clock: options.clock, onBlock: logBackoff(logger) }),
  });
  let draining = false;
  const parts = composeSessions(options, {
    runtime,
    routes,
    logger,
    progressIntervalMs,
    maxSessions,
    draining: () => draining,
    connections: () => listener?.connections,
  });
  const { sessions, modern } = parts;
  const router = new HttpRouter({ ...parts, endpoint, access, resourceMetadata, consoleHandler: options.consoleHandler, maxSessions, draining: () => draining });
  listener = await listen((req, res) => router.handle(req, res), { ...options, host, logger });
  const { http, port } = listener;
  const sweep = idleSweep(options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, sessions, modern);

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
      if (options.runtime === undefined) await runtime.close();
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

/** The options judged before anything starts; returns the token requests must present (a generated one on a loopback address only). */
function checkOptions(options: HttpServeOptions, host: string): string {
  if (options.runtime && (options.runtimeOptions || options.sandboxMode !== undefined)) {
    throw new ShellringError('SHELLRING_INVALID_CONFIG', 'serveHttp: pass either an existing runtime or options to create one, not both');
  }
  if (options.token === undefined && !isLoopback(host)) {
    throw new ShellringError(
      'SHELLRING_NO_TOKEN',
      `refusing to serve on ${host} without an explicit token: anyone who can reach that address could run commands; give a token (--token-file FILE or SHELLRING_TOKEN)`,
    );
  }
  return options.token === undefined ? generateToken() : checkTokenValue(options.token, 'the token option');
}

/** Closes sessions and 2026 states idle past the timeout (none when it is 0). */
function idleSweep(idleTimeoutMs: number, sessions: HttpSessions, modern: ModernEndpoint): NodeJS.Timeout | undefined {
  if (idleTimeoutMs <= 0) return undefined;
  const sweep = setInterval(
    () => {
      sessions.expireIdle(idleTimeoutMs);
      modern.expireIdle(idleTimeoutMs);
    },
    Math.min(Math.max(idleTimeoutMs / 10, 50), 10_000),
  );
  sweep.unref();
  return sweep;
}
