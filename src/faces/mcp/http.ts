// The MCP server over streamable HTTP (node:http): each MCP session is its own runtime session, closed with it.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { RuntimeOptions } from '../../runtime/options.js';
import { createRuntime, type Runtime } from '../../runtime/runtime.js';
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
}

export interface HttpServer {
  url: string;
  host: string;
  port: number;
  runtime: Runtime;
  /** Open MCP sessions, by MCP session id (which is also the runtime session id). */
  sessionIds(): string[];
  close(): Promise<void>;
}

interface Entry {
  server: Server;
  transport: StreamableHTTPServerTransport;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

export async function serveHttp(options: HttpServeOptions = {}): Promise<HttpServer> {
  if (options.runtime && (options.runtimeOptions || options.sandboxMode !== undefined)) {
    throw new TypeError('serveHttp: pass either an existing runtime or options to create one, not both');
  }
  const host = options.host ?? '127.0.0.1';
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
  const loopback = LOOPBACK_NAMES.has(bracketed(host)) || host.startsWith('127.');
  const allowedHosts = new Set([...LOOPBACK_NAMES, bracketed(host)]);

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
    if (url.pathname !== endpoint) return reply(res, 404, -32000, `Not found: ${url.pathname}`);
    // A page on another site can resolve its own name to 127.0.0.1 (DNS rebinding); its Host header gives it away.
    if (loopback && !allowedHosts.has(hostnameOf(req.headers.host))) {
      return reply(res, 403, -32000, `Invalid Host header: ${req.headers.host ?? '(none)'}`);
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const entry = entries.get(sessionId);
      if (!entry) return reply(res, 404, -32001, 'Session not found');
      return entry.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return reply(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    return open(req, res);
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, -32603, `Internal error: ${(error as Error)?.message ?? String(error)}`);
      else res.end();
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

function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function hostnameOf(header: string | undefined): string {
  if (!header) return '';
  try {
    return new URL(`http://${header}`).hostname;
  } catch {
    return '';
  }
}

function reply(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
