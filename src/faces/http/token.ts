// The bearer token of the HTTP face: how one is made, judged acceptable, found in a request and compared.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ShellringError } from '../../errors.js';

/** Long enough to resist guessing, short enough to fit any proxy's header limit. */
export const TOKEN_MIN_LENGTH = 16;
export const TOKEN_MAX_LENGTH = 1024;

export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/** A configured token, or the reason it is unusable (the message names where it came from). */
export function checkTokenValue(token: string, source: string): string {
  if (token.length === 0) throw new ShellringError('SHELLRING_INVALID_CONFIG', `the token from ${source} is empty`);
  if (token.length < TOKEN_MIN_LENGTH) {
    throw new ShellringError('SHELLRING_INVALID_CONFIG', `the token from ${source} is too short (${token.length} characters; at least ${TOKEN_MIN_LENGTH})`);
  }
  if (token.length > TOKEN_MAX_LENGTH) {
    throw new ShellringError('SHELLRING_INVALID_CONFIG', `the token from ${source} is too long (${token.length} characters; at most ${TOKEN_MAX_LENGTH})`);
  }
  // The token travels in a header and a cookie: visible ASCII without separators survives both unchanged.
  if (!/^[\x21-\x7e]+$/.test(token) || /[;,"\\]/.test(token)) {
    throw new ShellringError('SHELLRING_INVALID_CONFIG', `the token from ${source} must be printable ASCII without spaces, quotes, commas, semicolons or backslashes`);
  }
  return token;
}

/**
 * Constant-time comparison: both sides are hashed first, so neither the content nor the length of the expected
 * token shows in the time a wrong guess takes.
 */
export function tokenMatches(expected: string, candidate: string | undefined): boolean {
  if (candidate === undefined || candidate.length === 0 || candidate.length > TOKEN_MAX_LENGTH) return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(candidate).digest();
  return timingSafeEqual(a, b);
}

/**
 * The token a request presents in `Authorization: Bearer <token>`. Only the header carries it: the console's
 * cookie names a sign-in, never the token, so nothing a browser keeps or sends on its own is the token.
 */
export function presentedToken(req: IncomingMessage): { token: string | undefined; scheme: 'bearer' | 'none' | 'other' } {
  const header = req.headers.authorization;
  if (header === undefined) return { token: undefined, scheme: 'none' };
  const match = /^Bearer(?: +(\S*))? *$/i.exec(header);
  // An empty token ("Bearer") is a presented, wrong token, not a missing one.
  return match ? { token: match[1] ?? '', scheme: 'bearer' } : { token: undefined, scheme: 'other' };
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
