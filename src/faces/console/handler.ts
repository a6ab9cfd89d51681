// The web console as a Node request handler over a runtime: sign-in, the page, its API and its event stream.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Runtime } from '../../runtime/runtime.js';
import { isSandboxMode } from '../../sandbox/modes.js';
import type { ApprovalDecision, ConsoleApprovals } from './approvals.js';
import { Assets } from './assets.js';
import { checkTokenValue, CSRF_HEADER, csrfValue, presentedToken, sameOrigin, signInCookie, tokenMatches } from './auth.js';
import { sendSpill } from './spill.js';
import { ConsoleStream } from './stream.js';
import { Timeline } from './timeline.js';
import { ShellringError } from '../../errors.js';

export interface ConsoleOptions {
  /** The secret a person signs in with (`/?token=<token>` once; a cookie afterwards) or sends as a Bearer token. */
  token: string;
  /** Escalation and command requests to show for approval; give the same object as the runtime's `approval.request`. */
  approvals?: ConsoleApprovals;
  /** Mark the sign-in cookie Secure (the console is reached over https, e.g. behind a TLS proxy). */
  secureCookie?: boolean;
}

export type ConsoleHandler = ((req: IncomingMessage, res: ServerResponse) => void) & {
  /** Ends open event streams and stops following the runtime. */
  close(): void;
};

const MAX_BODY = 16 * 1024;

export function createConsoleHandler(runtime: Runtime, options: ConsoleOptions): ConsoleHandler {
  if (typeof options?.token !== 'string') throw new ShellringError('SHELLRING_INVALID_CONFIG', 'createConsoleHandler: a token is required');
  // The same rules as the HTTP face: long enough, and safe in a cookie and a header.
  checkTokenValue(options.token, 'the console token option');
  const { token, approvals } = options;
  const csrf = csrfValue(token);
  const assets = new Assets();
  const timeline = new Timeline(runtime);
  const streams = new Map<string, ConsoleStream>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://console.invalid');
    const path = url.pathname;
    if (!sameOrigin(req)) return text(res, 403, 'Forbidden: another site');
    if (req.method === 'GET' && path === '/' && url.searchParams.has('token')) {
      if (!tokenMatches(token, url.searchParams.get('token') ?? undefined)) return signInPage(res, 401, 'That token is not valid.');
      res.writeHead(303, {
        'set-cookie': signInCookie(token, options.secureCookie === true),
        // The token leaves the address bar and the history at once.
        location: '/',
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-store',
      });
      return void res.end();
    }
    if (!tokenMatches(token, presentedToken(req).token)) {
      if (req.method === 'GET' && path === '/') return signInPage(res, 401, 'Open the address shellring printed: /?token=<token>.');
      return text(res, 401, 'Unauthorized', { 'www-authenticate': 'Bearer realm="shellring"' });
    }
    if (req.method === 'GET') return get(req, res, url);
    if (req.method !== 'POST') return text(res, 405, 'Method not allowed', { allow: 'GET, POST' });
    if (!tokenMatches(csrf, header(req, CSRF_HEADER))) return text(res, 403, `Forbidden: missing or wrong ${CSRF_HEADER} header`);
    const body = await readJson(req);
    if (typeof body === 'string') return text(res, 400, body);
    return post(res, path, body);
  }

  function get(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const path = url.pathname;
    if (path === '/') {
      return send(res, 200, assets.index(csrf), 'text/html; charset=utf-8', { 'content-security-policy': assets.csp });
    }
    if (path === '/api/stream') {
      const stream = new ConsoleStream(res, {
        runtime,
        timeline,
        approvals,
        sessionId: url.searchParams.get('session') || undefined,
        jobId: url.searchParams.get('job') || undefined,
      });
      streams.set(stream.id, stream);
      res.on('close', () => streams.delete(stream.id));
      return;
    }
    // The page has no icon; a browser asks anyway.
    if (path === '/favicon.ico') return void res.writeHead(204).end();
    if (path === '/api/spill') {
      const error = sendSpill(res, runtime.executor.spills.root, url.searchParams.get('path'));
      if (error) text(res, error.startsWith('refused') ? 403 : 404, error);
      return;
    }
    const asset = assets.get(path.slice(1));
    if (asset) return send(res, 200, asset.body, asset.type, { 'cache-control': 'no-cache' });
    return text(res, 404, `Not found: ${path}`);
  }

  function post(res: ServerResponse, path: string, body: Record<string, unknown>): void {
    if (path === '/api/stream/ack') {
      const stream = typeof body.stream === 'string' ? streams.get(body.stream) : undefined;
      if (!stream) return text(res, 404, 'no such stream');
      stream.ack(Number(body.seq));
      return json(res, 200, {});
    }
    let match = /^\/api\/jobs\/([^/]+)\/stop$/.exec(path);
    if (match) {
      if (!runtime.jobs) return text(res, 404, 'this runtime has no jobs');
      const id = decodeURIComponent(match[1]!);
      const reason = typeof body.reason === 'string' && body.reason.trim() ? body.reason.trim().slice(0, 500) : undefined;
      try {
        return json(res, 200, { stopping: runtime.jobs.kill(id, reason) });
      } catch (error) {
        return text(res, 404, (error as Error).message);
      }
    }
    match = /^\/api\/approvals\/([^/]+)$/.exec(path);
    if (match) {
      if (!approvals) return text(res, 404, 'this console is not an approval channel');
      const decision = body.decision;
      if (decision !== 'allow-once' && decision !== 'allow-always' && decision !== 'reject') {
        return text(res, 400, 'decision must be "allow-once", "allow-always" or "reject"');
      }
      const decided = approvals.decide(decodeURIComponent(match[1]!), decision as ApprovalDecision);
      return decided ? json(res, 200, { decided }) : text(res, 409, 'this request is no longer pending');
    }
    match = /^\/api\/sessions\/([^/]+)\/mode$/.exec(path);
    if (match) {
      const id = decodeURIComponent(match[1]!);
      const session = runtime.sessions().find((open) => open.id === id);
      if (!session) return text(res, 404, `no open session ${id}`);
      if (typeof body.mode !== 'string' || !isSandboxMode(body.mode)) return text(res, 400, 'mode must be a sandbox mode');
      try {
        session.setSandboxMode(body.mode);
      } catch (error) {
        return text(res, 409, (error as Error).message);
      }
      for (const stream of streams.values()) stream.refresh();
      return json(res, 200, { mode: body.mode });
    }
    return text(res, 404, `Not found: ${path}`);
  }

  const handler = ((req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      // One bad request fails alone.
      if (!res.headersSent) text(res, 500, `Internal error: ${(error as Error)?.message ?? String(error)}`);
      else res.destroy();
    });
  }) as ConsoleHandler;
  handler.close = () => {
    for (const stream of streams.values()) stream.close();
    streams.clear();
    timeline.close();
  };
  return handler;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | string> {
  let size = 0;
  const parts: Buffer[] = [];
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > MAX_BODY) return `request body too large (at most ${MAX_BODY} bytes)`;
    parts.push(part);
  }
  if (size === 0) return {};
  try {
    const value: unknown = JSON.parse(Buffer.concat(parts).toString('utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Answered below.
  }
  return 'request body must be a JSON object';
}

const BASE_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY' };

function send(res: ServerResponse, status: number, body: Buffer | string, type: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'cache-control': 'no-store',
    ...BASE_HEADERS,
    ...headers,
    'content-type': type,
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

function text(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  send(res, status, `${message}\n`, 'text/plain; charset=utf-8', headers);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, JSON.stringify(value), 'application/json');
}

function signInPage(res: ServerResponse, status: number, why: string): void {
  const body = `<!doctype html><meta charset="utf-8"><title>shellring console</title><p>${why.replace(/</g, '&lt;')}</p>\n`;
  send(res, status, body, 'text/html; charset=utf-8', { 'content-security-policy': "default-src 'none'" });
}
