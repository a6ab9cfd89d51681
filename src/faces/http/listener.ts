// The node:http server under the HTTP face: its timeouts, the answer to a client that sends garbage or stops
// talking, the connection cap that keeps descriptors for the sessions, and a request's failure kept to itself.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Logger } from 'pino';
import { ConnectionGuard, defaultMaxConnections } from './connections.js';
import { replyError, RPC } from './reply.js';
import { closeIfBodyUnread, lingerThenClose } from './unread-body.js';

export interface ListenerOptions {
  host: string;
  port?: number;
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  maxConnections?: number;
  descriptorReserve?: number;
  logger: Logger;
}

export interface Listener {
  http: Server;
  port: number;
  connections: ConnectionGuard;
}

export async function listen(handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>, options: ListenerOptions): Promise<Listener> {
  const http = createServer(
    {
      headersTimeout: options.headersTimeoutMs ?? 10_000,
      requestTimeout: options.requestTimeoutMs ?? 30_000,
      // The timeouts above are enforced on this tick; Node's default (30 s) would let a slow client stay far longer.
      connectionsCheckingInterval: 1000,
      // Longer than any client's or proxy's idle keep-alive: with Node's 5 s, a busy client reusing a connection the
      // server is just closing gets ECONNRESET on a POST it cannot safely retry.
      keepAliveTimeout: 65_000,
    },
    (req, res) => {
      closeIfBodyUnread(req, res);
      handle(req, res).catch((error: unknown) => {
        options.logger.error({ event: 'request.failed', err: error }, 'request failed');
        replyError(res, 500, RPC.internal, `Internal error: ${(error as Error)?.message ?? String(error)}`);
      });
    },
  );
  // A client that sends garbage, or is too slow, loses its own connection and nothing else, a bound after its
  // answer even if it never closes its side.
  http.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    lingerThenClose(socket as Socket, `HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
  });
  const connections = new ConnectionGuard(http, options.maxConnections ?? defaultMaxConnections(options.descriptorReserve));
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, options.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  return { http, port: (http.address() as AddressInfo).port, connections };
}
