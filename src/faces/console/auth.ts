// Who may use the console: the HTTP face's token (Bearer header or sign-in cookie) and, for changes, a CSRF header.
import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { TOKEN_COOKIE } from '../http/token.js';

export { checkTokenValue, presentedToken, tokenMatches, TOKEN_COOKIE } from '../http/token.js';

/** Every state-changing request carries this header with the page's CSRF value. */
export const CSRF_HEADER = 'x-shellring-csrf';

/** HttpOnly: page scripts never see the token; SameSite=Strict: other sites' pages never send it. */
export function signInCookie(token: string, secure: boolean): string {
  return `${TOKEN_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** The page's CSRF value: derived from the token, so it needs no server state and dies with the token. */
export function csrfValue(token: string): string {
  return createHmac('sha256', token).update('shellring console csrf').digest('base64url');
}

/** A request from another site's page names its origin; the console answers only its own. */
export function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  const host = req.headers.host;
  return host !== undefined && (origin === `http://${host}` || origin === `https://${host}`);
}
