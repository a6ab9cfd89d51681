// A response that goes out before its request's body was read (a refusal: no token, another site, too large) ends
// the connection: the rest of the body is never read, so refusing a gigabyte costs what refusing a byte costs. Every
// refused connection ends the same way (lingerThenClose), a bound after its answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How long a refused connection stays open after its answer, reading nothing. */
const LINGER_MS = 1000;

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
    if (!req.complete) lingerThenClose(req.socket);
  });
}

/**
 * Ends a connection whose client may still be sending (or never closes its side: after a FIN, Node keeps a socket
 * until the client's FIN, which a client that stopped talking never sends). Closing a socket with bytes unread
 * resets the connection, and a reset that reaches the client before it has read the answer makes its kernel drop the
 * answer (on loopback that was most refusals). So nothing more is read (the unread bytes fill the kernel's buffers,
 * which stops the client), the answer (`last`, when the response is not Node's) and a FIN go out now, and the socket
 * is closed LINGER_MS later.
 */
export function lingerThenClose(socket: Socket, last?: string): void {
  // Node ends a `Connection: close` response's socket with destroySoon(), which closes it once the FIN is out.
  socket.removeListener('finish', socket.destroy);
  // Node resumes a finished request to throw its body away, which resumes the socket a tick later: paused again.
  socket.pause();
  socket.on('resume', () => socket.pause());
  if (last === undefined) socket.end();
  else socket.end(last);
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}
