// The MCP server over streamable HTTP (node:http): each MCP session is its own runtime session, closed with it.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { RuntimeOptions } from '../../runtime/options.js';
import { createRuntime, type Runtime } from '../../runtime/runtime.js';
import { Access, bracketed, isLoopback } from '../http/access.js';
import { replyError, RPC } from '../http/reply.js';
import { checkTokenValue, generateToken } from '../http/token.js';
import { faceRuntimeOptions } from '../runtime-options.js';
import { SessionRoutes } from './routes.js';
import { createMcpServer } from './server.js';

export interface HttpServeOptions {
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
   * `approval.request` = this server's `routes.approve`; pass those `routes` here too.
   */
  runtime?: Runtime;
  routes?: SessionRoutes;
  /**
   * The bearer token every request must present (`Authorization: Bearer <token>`, or the console's
   * `shellring_token` cookie). Omitted: a random one is generated (see `HttpServer.token`), which is allowed only
   * on a loopback address.
   */
  token?: string;
  /** Origins allowed besides the server's own, exact `scheme://host[:port]`. */
  allowedOrigins?: string[];
  /**
   * Serves every path other than the MCP endpoint, /healthz, /readyz and /metrics (a web console). It runs after
   * the Host, Origin and token checks, except for the sign-in request `GET /?token=...`, which it must judge itself
   * (with `tokenMatches`).
   */
  consoleHandler?: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;
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
  close(): Promise<void>;
}

interface Entry {
  server: Server;
  transport: StreamableHTTPServerTransport;
}

export async function serveHttp(options: HttpServeOptions = {}): Promise<HttpServer> {
  if (options.runtime && (options.runtimeOptions || options.sandboxMode !== undefined)) {
    throw new TypeError('serveHttp: pass either an existing runtime or options to create one, not both');
  }
  const host = options.host ?? '127.0.0.1';
  if (options.token === undefined && !isLoopback(host)) {
    throw Object.assign(
      new Error(
        `refusing to serve on ${host} without an explicit token: anyone who can reach that address could run commands; give a token (--token-file FILE or SHELLRING_TOKEN)`,
      ),
      { code: 'SHELLRING_NO_TOKEN' },
    );
  }
  const token = options.token === undefined ? generateToken() : checkTokenValue(options.token, 'the token option');
  const access = new Access({ host, token, allowedOrigins: options.allowedOrigins });
  const consoleHandler = options.consoleHandler;
  const endpoint = options.path ?? '/mcp';
  const cwd = options.cwd ?? process.cwd();
  const routes = options.routes ?? new SessionRoutes();
  const owned = options.runtime === undefined;
  const runtime =
    options.runtime ??
    (await createRuntime(
      faceRuntimeOptions(options.runtimeOptions ?? {}, { sandboxMode: options.sandboxMode, approve: routes.approve }),
    ));
  const unlisten = routes.listen(runtime);
  const entries = new Map<string, Entry>();

  async function open(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const id = randomUUID();
    const session = runtime.session({ id, cwd });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => void entries.set(id, { server, transport }),
    });
    const server = createMcpServer({
      runtime,
      session,
      routes,
      onClose: () => {
        entries.delete(id);
        void session.close();
      },
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } finally {
      // Anything but a successful initialize leaves the transport without a session: nothing to keep.
      if (transport.sessionId === undefined) {
        await server.close().catch(() => {});
        await session.close();
      }
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!access.checkSite(req, res)) return;
    // The console's sign-in carries the token in its query and must reach the console before any token check.
    if (consoleHandler && req.method === 'GET' && url.pathname === '/' && url.searchParams.has('token')) {
      return consoleHandler(req, res);
    }
    if (!access.checkToken(req, res)) return;
    if (url.pathname === endpoint) return mcp(req, res);
    if (consoleHandler) return consoleHandler(req, res);
    return replyError(res, 404, RPC.serverError, `Not found: ${url.pathname}`);
  }

  async function mcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const entry = entries.get(sessionId);
      if (!entry) return replyError(res, 404, RPC.sessionNotFound, 'Session not found');
      return entry.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return replyError(res, 400, RPC.serverError, 'Bad Request: Mcp-Session-Id header is required');
    return open(req, res);
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      replyError(res, 500, RPC.internal, `Internal error: ${(error as Error)?.message ?? String(error)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${bracketed(host)}:${port}${endpoint}`,
    host,
    port,
    runtime,
    token,
    tokenGenerated: options.token === undefined,
    sessionIds: () => [...entries.keys()],
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
        // Open SSE streams would hold http.close() forever.
        http.closeAllConnections();
        await Promise.all([...entries.values()].map((entry) => entry.server.close().catch(() => {})));
        await stopped;
        unlisten();
        if (owned) await runtime.close();
      })();
      return closing;
    },
  };
}
