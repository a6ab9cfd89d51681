// The web console as a Node request handler over a runtime: sign-in, the page, its API and its event stream.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Runtime } from '../../runtime/runtime.js';
import { isSandboxMode } from '../../sandbox/modes.js';
import type { ApprovalDecision, ConsoleApprovals } from './approvals.js';
import { Assets } from './assets.js';
import { checkTokenValue, cookieValue, CSRF_HEADER, presentedToken, sameOrigin, SIGN_IN_COOKIE, signInCookie, tokenMatches } from './auth.js';
import { SIGN_IN_CSP, signInPageHtml, SIGN_IN_TEXTS } from './sign-in-page.js';
import { SignIns } from './sign-ins.js';
import { sendSpill } from './spill.js';
import { ConsoleStream } from './stream.js';
import { Timeline } from './timeline.js';
import { ShellringError } from '../../errors.js';

export interface ConsoleOptions {
  /**
   * The secret a person signs in with (the form at `/`, once; a cookie afterwards) or a program sends as a Bearer
   * token. A bearer may read the console and stop jobs; a session's mode and approvals need a signed-in browser.
   */
  token: string;
  /** Escalation and command requests to show for approval; give the same object as the runtime's `approval.request`. */
  approvals?: ConsoleApprovals;
  /** Mark the sign-in cookie Secure (the console is reached over https, e.g. behind a TLS proxy). */
  secureCookie?: boolean;
  /**
   * Also sign in from the address `/?token=<token>` (a link printed on a loopback server). Off by default: an
   * address with the token in it is kept by proxies' logs and browser history.
   */
  linkSignIn?: boolean;
}

export type ConsoleHandler = ((req: IncomingMessage, res: ServerResponse) => void) & {
  /** Ends open event streams and stops following the runtime. */
  close(): void;
  /** This handler judges every request's access itself (sign-in cookie or bearer token); see serveHttp. */
  readonly judgesAccess: true;
  /** Bytes the timeline's cards keep, every session together (at most TIMELINE_BYTES_PER_SESSION each). */
  retainedBytes(): number;
};

const MAX_BODY = 16 * 1024;
/** A sign-in form holds one token of at most 1024 characters, each at most 3 bytes once form-encoded. */
const MAX_SIGN_IN_BODY = 4 * 1024;

/** Who a request comes from: a signed-in browser, a program with the bearer token, or nobody known. */
type Caller = { kind: 'browser'; csrf: string } | { kind: 'bearer' } | undefined;

export function createConsoleHandler(runtime: Runtime, options: ConsoleOptions): ConsoleHandler {
  if (typeof options?.token !== 'string') throw new ShellringError('SHELLRING_INVALID_CONFIG', 'createConsoleHandler: a token is required');
  // The same rules as the HTTP face: long enough, and safe in a header.
  checkTokenValue(options.token, 'the console token option');
  const { token, approvals } = options;
  const signIns = new SignIns();
  const assets = new Assets();
  const timeline = new Timeline(runtime);
  const streams = new Map<string, ConsoleStream>();

  function caller(req: IncomingMessage): Caller {
    const signIn = signIns.find(cookieValue(req.headers.cookie, SIGN_IN_COOKIE));
    if (signIn) return { kind: 'browser', csrf: signIn.csrf };
    return tokenMatches(token, presentedToken(req).token) ? { kind: 'bearer' } : undefined;
  }

  function signedIn(res: ServerResponse): void {
    const signIn = signIns.create();
    res.writeHead(303, {
      'set-cookie': signInCookie(signIn.id, options.secureCookie === true),
      location: '/',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    });
    res.end();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://console.invalid');
    const path = url.pathname;
    if (!sameOrigin(req)) return text(res, 403, 'Forbidden: another site');
    if (path === '/' && req.method === 'POST' && !req.headers.authorization && isForm(req)) {
      const presented = await readSignInForm(req);
      if (!tokenMatches(token, presented)) return signInPage(res, 401, SIGN_IN_TEXTS.wrong);
      return signedIn(res);
    }
    if (req.method === 'GET' && path === '/' && url.searchParams.has('token')) {
      if (!options.linkSignIn) return signInPage(res, 400, SIGN_IN_TEXTS.linkRefused);
      if (!tokenMatches(token, url.searchParams.get('token') ?? undefined)) return signInPage(res, 401, SIGN_IN_TEXTS.wrong);
      // The token leaves the address bar and the history at once.
      return signedIn(res);
    }
    const who = caller(req);
    if (!who) {
      if (req.method === 'GET' && path === '/') return signInPage(res, 401, SIGN_IN_TEXTS.prompt);
      return text(res, 401, 'Unauthorized', { 'www-authenticate': 'Bearer realm="shellring"' });
    }
    if (req.method === 'GET') return get(res, url, who);
    if (req.method !== 'POST') return text(res, 405, 'Method not allowed', { allow: 'GET, POST' });
    // A browser sends its cookie on its own, so its changes must prove they come from the page; a bearer header is
    // never sent on its own, so it needs no such proof.
    if (who.kind === 'browser' && !tokenMatches(who.csrf, header(req, CSRF_HEADER))) {
      return text(res, 403, `Forbidden: missing or wrong ${CSRF_HEADER} header`);
    }
    const body = await readJson(req);
    if (typeof body === 'string') return text(res, 400, body);
    return post(res, path, body, who);
  }

  async function get(res: ServerResponse, url: URL, who: NonNullable<Caller>): Promise<void> {
    const path = url.pathname;
    if (path === '/') {
      const csrf = who.kind === 'browser' ? who.csrf : '';
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
      const error = await sendSpill(res, runtime, url.searchParams.get('path'));
      if (error) text(res, error.startsWith('refused') ? 403 : 404, error);
      return;
    }
    const asset = assets.get(path.slice(1));
    if (asset) return send(res, 200, asset.body, asset.type, { 'cache-control': 'no-cache' });
    return text(res, 404, `Not found: ${path}`);
  }

  function post(res: ServerResponse, path: string, body: Record<string, unknown>, who: NonNullable<Caller>): void {
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
      if (who.kind !== 'browser') return text(res, 403, PERSON_ONLY);
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
      if (who.kind !== 'browser') return text(res, 403, PERSON_ONLY);
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
  Object.defineProperty(handler, 'judgesAccess', { value: true });
  handler.retainedBytes = () => timeline.retainedBytes;
  handler.close = () => {
    for (const stream of streams.values()) stream.close();
    streams.clear();
    timeline.close();
  };
  return handler;
}

/** Changing a session's mode and answering approvals are a person's decisions, never a program's with the token. */
const PERSON_ONLY = 'Forbidden: only a person signed in to the console (a browser with its sign-in cookie) can do this; the bearer token cannot';

function isForm(req: IncomingMessage): boolean {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() === 'application/x-www-form-urlencoded';
}

/** The form's `token` field, decoded as a browser encoded it (`+`, `/` and `=` arrive percent-encoded). */
async function readSignInForm(req: IncomingMessage): Promise<string | undefined> {
  let size = 0;
  const parts: Buffer[] = [];
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > MAX_SIGN_IN_BODY) return undefined;
    parts.push(part);
  }
  return new URLSearchParams(Buffer.concat(parts).toString('utf8')).get('token') ?? undefined;
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

function signInPage(res: ServerResponse, status: number, message: string): void {
  // same-origin, not no-referrer: under no-referrer a browser sends the form's POST with `Origin: null`, which the
  // origin checks refuse; this page's address holds nothing secret.
  send(res, status, signInPageHtml(message), 'text/html; charset=utf-8', { 'content-security-policy': SIGN_IN_CSP, 'referrer-policy': 'same-origin' });
}
