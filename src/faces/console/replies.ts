// The console's answers and request bodies: pages, text and JSON with the headers every console answer carries, and
// the bounded readers of a sign-in form and a JSON body.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SIGN_IN_CSP, signInPageHtml } from './sign-in-page.js';

const MAX_BODY = 16 * 1024;
/** A sign-in form holds one token of at most 1024 characters, each at most 3 bytes once form-encoded. */
const MAX_SIGN_IN_BODY = 4 * 1024;

const BASE_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY' };

export function send(res: ServerResponse, status: number, body: Buffer | string, type: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'cache-control': 'no-store',
    ...BASE_HEADERS,
    ...headers,
    'content-type': type,
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

export function text(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  send(res, status, `${message}\n`, 'text/plain; charset=utf-8', headers);
}

export function json(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, JSON.stringify(value), 'application/json');
}

export function signInPage(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  // same-origin, not no-referrer: under no-referrer a browser sends the form's POST with `Origin: null`, which the
  // origin checks refuse; this page's address holds nothing secret.
  send(res, status, signInPageHtml(message), 'text/html; charset=utf-8', { ...headers, 'content-security-policy': SIGN_IN_CSP, 'referrer-policy': 'same-origin' });
}

export function isForm(req: IncomingMessage): boolean {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() === 'application/x-www-form-urlencoded';
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** The form's `token` field, decoded as a browser encoded it (`+`, `/` and `=` arrive percent-encoded). */
export async function readSignInForm(req: IncomingMessage): Promise<string | undefined> {
  const body = await readBounded(req, MAX_SIGN_IN_BODY);
  return body === undefined ? undefined : (new URLSearchParams(body.toString('utf8')).get('token') ?? undefined);
}

/** A JSON object body (an empty body is `{}`), or why it is refused. */
export async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | string> {
  const body = await readBounded(req, MAX_BODY);
  if (body === undefined) return `request body too large (at most ${MAX_BODY} bytes)`;
  if (body.length === 0) return {};
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Answered below.
  }
  return 'request body must be a JSON object';
}

/** The whole body, or undefined once it passes `max` bytes (the rest is left unread). */
async function readBounded(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  let size = 0;
  const parts: Buffer[] = [];
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > max) return undefined;
    parts.push(part);
  }
  return Buffer.concat(parts);
}
