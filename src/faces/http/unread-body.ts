// A response that goes out before its request's body was read (a refusal: no token, another site, too large) ends
// the connection: the rest of the body is never read, so refusing a gigabyte costs what refusing a byte costs.
import type { IncomingMessage, ServerResponse } from 'node:http';

export function closeIfBodyUnread(req: IncomingMessage, res: ServerResponse): void {
  const declared = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (!declared) return;
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    // Tells the client (`Connection: close`) that this connection ends with the answer.
    if (!req.complete) this.shouldKeepAlive = false;
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as typeof res.writeHead;
  res.once('finish', () => {
    // Node (and the SDK's adapter) would otherwise read the rest and throw it away to keep the connection alive.
    if (!req.complete) req.socket.destroy();
  });
}
