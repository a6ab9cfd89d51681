// Error answers of the HTTP face: a JSON-RPC error body (what an MCP client parses) with the HTTP status that fits.
import type { ServerResponse } from 'node:http';

/** JSON-RPC error codes the face uses besides the SDK's own. */
export const RPC = {
  serverError: -32000,
  /** Unknown or expired session: the SDK client's cue to initialize again. */
  sessionNotFound: -32001,
  unauthorized: -32002,
  overloaded: -32003,
  internal: -32603,
} as const;

export function replyError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export function replyText(res: ServerResponse, status: number, text: string, contentType = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}
