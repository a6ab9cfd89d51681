// Who may use the console: a signed-in browser (cookie plus its CSRF header for changes), or the HTTP face's bearer
// token for reading and stopping; decisions only a person makes (a session's mode, approvals) need the browser.
import type { IncomingMessage } from 'node:http';

export { checkTokenValue, cookieValue, presentedToken, tokenMatches } from '../http/token.js';

/** The cookie a sign-in sets: a random value naming that sign-in, never the token. */
export const SIGN_IN_COOKIE = 'shellring_signin';

/** Every state-changing request of a signed-in browser carries this header with the page's CSRF value. */
export const CSRF_HEADER = 'x-shellring-csrf';

/** HttpOnly: page scripts never see it; SameSite=Strict: other sites' pages never send it; Secure behind TLS. */
export function signInCookie(id: string, secure: boolean): string {
  return `${SIGN_IN_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** A request from another site's page names its origin; the console answers only its own. */
export function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  const host = req.headers.host;
  return host !== undefined && (origin === `http://${host}` || origin === `https://${host}`);
}
