// Serves one node:http request through a web-standard fetch handler (the SDK's 2026-07-28 entry): the request body
// streams in, the response (JSON or an SSE stream) streams out, and a client that hangs up aborts the request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

export type FetchHandler = (request: Request) => Promise<Response>;

export async function serveThroughFetch(handler: FetchHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const abort = new AbortController();
  let body: ReadableStream<Uint8Array> | null = null;
  // Closing the response stream is how a 2026-07-28 client cancels a request over HTTP.
  res.once('close', () => {
    if (res.writableFinished) return;
    abort.abort();
    body?.cancel().catch(() => {});
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const request = new Request(new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`), {
    method: req.method,
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
    signal: abort.signal,
    ...(hasBody ? { duplex: 'half' } : {}),
  } as RequestInit);
  const response = await handler(request);
  const out: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    out[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) out['set-cookie'] = cookies;
  res.writeHead(response.status, out);
  body = response.body;
  if (!body) {
    res.end();
    return;
  }
  // SSE events must leave at once, not when a buffer fills.
  res.flushHeaders();
  try {
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      if (res.destroyed) break;
      if (!res.write(chunk)) await new Promise<void>((resolve) => res.once('drain', resolve).once('close', resolve));
    }
  } catch {
    // The client went away mid-stream: nothing is left to send it.
  } finally {
    res.end();
  }
}
