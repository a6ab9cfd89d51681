// A pass-through HTTP proxy that adds the bearer token: for clients that cannot send headers of their own (the
// conformance runner), everything else (Host, Origin, bodies, SSE streams) reaches the server as they sent it.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TokenProxy {
  /** The proxy's base, `http://127.0.0.1:<port>`. */
  origin: string;
  port: number;
  close(): Promise<void>;
}

export async function tokenProxy(targetPort: number, token: string): Promise<TokenProxy> {
  const server: Server = createServer((req, res) => {
    const upstream = request(
      { host: '127.0.0.1', port: targetPort, path: req.url, method: req.method, headers: { ...req.headers, authorization: `Bearer ${token}` } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
