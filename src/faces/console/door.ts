// Who may use the console, judged per request: the sign-in form and link (which set a cookie), a signed-in browser's
// cookie (with the page's CSRF value on every change), or the bearer token; wrong tokens slow down per address.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tooManyWrong } from '../http/access.js';
import type { AuthBackoff } from '../http/auth-backoff.js';
import { cookieValue, CSRF_HEADER, presentedToken, SIGN_IN_COOKIE, signInCookie, tokenMatches } from './auth.js';
import { header, isForm, readSignInForm, signInPage, text } from './replies.js';
import { SIGN_IN_TEXTS } from './sign-in-page.js';
import { SignIns } from './sign-ins.js';

/** Who a request comes from: a signed-in browser (with its CSRF value), or a program with the bearer token. */
export type Caller = { kind: 'browser'; csrf: string } | { kind: 'bearer' };

export interface DoorOptions {
  token: string;
  secureCookie: boolean;
  linkSignIn: boolean;
  backoff: AuthBackoff;
}

export class ConsoleDoor {
  readonly #options: DoorOptions;
  readonly #signIns = new SignIns();

  constructor(options: DoorOptions) {
    this.#options = options;
  }

  /** Answers a sign-in (the form's POST, or the link where allowed) and returns true; false for other requests. */
  async signIn(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const { token } = this.#options;
    if (url.pathname === '/' && req.method === 'POST' && !req.headers.authorization && isForm(req)) {
      if (tokenMatches(token, await readSignInForm(req))) this.#signedIn(res);
      else this.#wrongSignIn(req, res);
      return true;
    }
    if (req.method === 'GET' && url.pathname === '/' && url.searchParams.has('token')) {
      if (!this.#options.linkSignIn) signInPage(res, 400, SIGN_IN_TEXTS.linkRefused);
      else if (!tokenMatches(token, url.searchParams.get('token') ?? undefined)) this.#wrongSignIn(req, res);
      // The token leaves the address bar and the history at once.
      else this.#signedIn(res);
      return true;
    }
    return false;
  }

  /** Who sends the request; undefined once it was answered (the sign-in page, 401, or 429 after too many guesses). */
  caller(req: IncomingMessage, res: ServerResponse, path: string): Caller | undefined {
    const signIn = this.#signIns.find(cookieValue(req.headers.cookie, SIGN_IN_COOKIE));
    if (signIn) return { kind: 'browser', csrf: signIn.csrf };
    if (tokenMatches(this.#options.token, presentedToken(req).token)) return { kind: 'bearer' };
    if (req.method === 'GET' && path === '/') return void signInPage(res, 401, SIGN_IN_TEXTS.prompt);
    // A bearer header is a guess; a stale cookie (a restarted server) is not.
    const wait = req.headers.authorization === undefined ? undefined : this.#options.backoff.failed(req);
    if (wait !== undefined) return void text(res, 429, tooManyWrong(wait), { 'retry-after': String(wait) });
    return void text(res, 401, 'Unauthorized', { 'www-authenticate': 'Bearer realm="shellring"' });
  }

  /**
   * A browser sends its cookie on its own, so each of its changes must prove it comes from the page (the CSRF
   * header); a bearer header is never sent on its own, so it needs no such proof. Answers 403 and returns false.
   */
  checkChange(req: IncomingMessage, res: ServerResponse, who: Caller): boolean {
    if (who.kind === 'bearer' || tokenMatches(who.csrf, header(req, CSRF_HEADER))) return true;
    text(res, 403, `Forbidden: missing or wrong ${CSRF_HEADER} header`);
    return false;
  }

  #signedIn(res: ServerResponse): void {
    const signIn = this.#signIns.create();
    res.writeHead(303, {
      'set-cookie': signInCookie(signIn.id, this.#options.secureCookie),
      location: '/',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    });
    res.end();
  }

  #wrongSignIn(req: IncomingMessage, res: ServerResponse): void {
    const wait = this.#options.backoff.failed(req);
    if (wait === undefined) return signInPage(res, 401, SIGN_IN_TEXTS.wrong);
    return signInPage(res, 429, SIGN_IN_TEXTS.throttled(wait), { 'retry-after': String(wait) });
  }
}
