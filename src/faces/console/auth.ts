// Who may use the console: the token (Bearer header or the sign-in cookie) and, for changes, the CSRF header.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The cookie sign-in sets; it carries the same token as `Authorization: Bearer`. */
export const TOKEN_COOKIE = 'shellring_token';
/** Every state-changing request carries this header with the page's CSRF value. */
export const CSRF_HEADER = 'x-shellring-csrf';

/** Constant-time: both sides are hashed, so neither content nor length shows in the time a wrong guess takes. */
export function sameSecret(expected: string, candidate: string | undefined): boolean {
  if (!candidate || candidate.length > 4096) return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(candidate).digest();
  return timingSafeEqual(a, b);
}

export function presentedToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (header !== undefined) return /^Bearer +(\S+) *$/i.exec(header)?.[1];
  return cookieValue(req.headers.cookie, TOKEN_COOKIE);
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

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
