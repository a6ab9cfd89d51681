// The web console as a Node request handler over a runtime: sign-in, the page, its API and its event stream.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Runtime } from '../../runtime/runtime.js';
import type { ConsoleApprovals } from './approvals.js';
import { Assets } from './assets.js';
import { act, type ActionContext } from './actions.js';
import { checkTokenValue, sameOrigin } from './auth.js';
import { ConsoleDoor, type Caller } from './door.js';
import { readJson, send, text } from './replies.js';
import { sendSpill } from './spill.js';
import { ConsoleStream } from './stream.js';
import { Timeline } from './timeline.js';
import { ShellringError } from '../../errors.js';
import { AuthBackoff } from '../http/auth-backoff.js';

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
  /** Slows down addresses that present wrong tokens; give the HTTP face's, so both count together. Default: its own. */
  authBackoff?: AuthBackoff;
}

export type ConsoleHandler = ((req: IncomingMessage, res: ServerResponse) => void) & {
  /** Ends open event streams and stops following the runtime. */
  close(): void;
  /** This handler judges every request's access itself (sign-in cookie or bearer token); see serveHttp. */
  readonly judgesAccess: true;
  /** Bytes the timeline's cards keep, every session together (at most TIMELINE_BYTES_PER_SESSION each). */
  retainedBytes(): number;
};

export function createConsoleHandler(runtime: Runtime, options: ConsoleOptions): ConsoleHandler {
  if (typeof options?.token !== 'string') throw new ShellringError('SHELLRING_INVALID_CONFIG', 'createConsoleHandler: a token is required');
  // The same rules as the HTTP face: long enough, and safe in a header.
  checkTokenValue(options.token, 'the console token option');
  const door = new ConsoleDoor({
    token: options.token,
    secureCookie: options.secureCookie === true,
    linkSignIn: options.linkSignIn === true,
    backoff: options.authBackoff ?? new AuthBackoff(),
  });
  const assets = new Assets();
  const timeline = new Timeline(runtime);
  const actions: ActionContext = { runtime, approvals: options.approvals, streams: new Map() };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://console.invalid');
    if (!sameOrigin(req)) return text(res, 403, 'Forbidden: another site');
    if (await door.signIn(req, res, url)) return;
    const who = door.caller(req, res, url.pathname);
    if (!who) return;
    if (req.method === 'GET') return get(res, url, who);
    if (req.method !== 'POST') return text(res, 405, 'Method not allowed', { allow: 'GET, POST' });
    // Every POST is a change: none runs before the door has seen a browser's CSRF value.
    if (!door.checkChange(req, res, who)) return;
    const body = await readJson(req);
    if (typeof body === 'string') return text(res, 400, body);
    return act(actions, url.pathname, body, who, res);
  }

  async function get(res: ServerResponse, url: URL, who: Caller): Promise<void> {
    const path = url.pathname;
    if (path === '/') {
      const csrf = who.kind === 'browser' ? who.csrf : '';
      return send(res, 200, assets.index(csrf), 'text/html; charset=utf-8', { 'content-security-policy': assets.csp });
    }
    if (path === '/api/stream') {
      const stream = new ConsoleStream(res, {
        runtime,
        timeline,
        approvals: options.approvals,
        sessionId: url.searchParams.get('session') || undefined,
        jobId: url.searchParams.get('job') || undefined,
      });
      actions.streams.set(stream.id, stream);
      res.on('close', () => actions.streams.delete(stream.id));
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
    for (const stream of actions.streams.values()) stream.close();
    actions.streams.clear();
    timeline.close();
  };
  return handler;
}
