// Who may talk to the HTTP face: the Host check (DNS rebinding), the Origin check (other sites' pages) and the token.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthBackoff } from './auth-backoff.js';
import { replyError, RPC } from './reply.js';
import { presentedToken, tokenMatches } from './token.js';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

export function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

export function isLoopback(host: string): boolean {
  return LOOPBACK_NAMES.has(bracketed(host)) || host.startsWith('127.');
}

export interface AccessOptions {
  /** The listening address. */
  host: string;
  token: string;
  /** Origins allowed besides the server's own (a console served elsewhere), exact `scheme://host[:port]`. */
  allowedOrigins?: readonly string[];
  /** More parameters of the 401 challenge for this request (its `resource_metadata`), with a leading comma. */
  challengeParameters?: (req: IncomingMessage) => string;
  /** Slows down an address that keeps presenting wrong credentials. */
  backoff?: AuthBackoff;
}

export class Access {
  readonly #token: string;
  readonly #loopback: boolean;
  readonly #allowedHosts: Set<string>;
  readonly #allowedOrigins: Set<string>;
  readonly #challengeParameters: AccessOptions['challengeParameters'];
  readonly #backoff: AuthBackoff | undefined;

  constructor(options: AccessOptions) {
    this.#token = options.token;
    this.#loopback = isLoopback(options.host);
    this.#allowedHosts = new Set([...LOOPBACK_NAMES, bracketed(options.host)]);
    this.#allowedOrigins = new Set(options.allowedOrigins ?? []);
    this.#challengeParameters = options.challengeParameters;
    this.#backoff = options.backoff;
  }

  /** Host and Origin: answers 403 and returns false when the request comes from where it must not. */
  checkSite(req: IncomingMessage, res: ServerResponse): boolean {
    // A page on another site can resolve its own name to 127.0.0.1 (DNS rebinding); its Host header gives it away.
    if (this.#loopback && !this.#allowedHosts.has(hostnameOf(req.headers.host))) {
      replyError(res, 403, RPC.serverError, `Invalid Host header: ${req.headers.host ?? '(none)'}`);
      return false;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !this.#ownOrigin(origin, req.headers.host)) {
      replyError(res, 403, RPC.serverError, `Forbidden Origin: ${origin.slice(0, 200)}`);
      return false;
    }
    return true;
  }

  /**
   * The token: answers 401 with a Bearer challenge and returns false unless the request presents it, or 429 when
   * its address presented too many wrong credentials (a request with none is no guess, and is not counted).
   */
  checkToken(req: IncomingMessage, res: ServerResponse): boolean {
    const { token, scheme } = presentedToken(req);
    if (tokenMatches(this.#token, token)) return true;
    const wait = scheme === 'none' ? undefined : this.#backoff?.failed(req);
    if (wait !== undefined) {
      replyError(res, 429, RPC.unauthorized, tooManyWrong(wait), { 'retry-after': String(wait) });
      return false;
    }
    const presented = scheme === 'bearer';
    const message =
      scheme === 'other'
        ? 'Unauthorized: the Authorization header must be "Bearer <token>"'
        : presented
          ? 'Unauthorized: invalid token'
          : 'Unauthorized: a bearer token is required (Authorization: Bearer <token>)';
    const challenge = (presented ? 'Bearer realm="shellring", error="invalid_token"' : 'Bearer realm="shellring"') + (this.#challengeParameters?.(req) ?? '');
    replyError(res, 401, RPC.unauthorized, message, { 'www-authenticate': challenge });
    return false;
  }

  /** The server's own origin is the one its Host header names (http, or https behind a TLS proxy). */
  #ownOrigin(origin: string, host: string | undefined): boolean {
    if (this.#allowedOrigins.has(origin)) return true;
    if (!host) return false;
    return origin === `http://${host}` || origin === `https://${host}`;
  }
}

/** The answer to a wrong credential from an address that presented too many. */
export function tooManyWrong(seconds: number): string {
  return `Too many wrong credentials from this address: retry after ${seconds} second${seconds === 1 ? '' : 's'}`;
}

function hostnameOf(header: string | undefined): string {
  if (!header) return '';
  try {
    return new URL(`http://${header}`).hostname;
  } catch {
    return '';
  }
}
