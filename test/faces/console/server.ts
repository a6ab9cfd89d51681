// The console mounted in a plain node:http server over a real runtime, and HTTP helpers for its tests.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRuntime, type Runtime } from '../../../src/index.js';
import { ConsoleApprovals, createConsoleHandler, type ConsoleHandler } from '../../../src/faces/console/index.js';

export const TOKEN = 'console-test-token-0123456789';

export interface Mounted {
  runtime: Runtime;
  approvals: ConsoleApprovals;
  handler: ConsoleHandler;
  base: string;
  /** Every response the server opened, so a test can look at what a connection holds unsent. */
  responses: ServerResponse[];
  close(): Promise<void>;
}

export async function mount(
  runtimeOptions: Parameters<typeof createRuntime>[0] = {},
  consoleOptions: { token?: string; linkSignIn?: boolean; secureCookie?: boolean } = {},
): Promise<Mounted> {
  const approvals = new ConsoleApprovals();
  const runtime = await createRuntime({ ...runtimeOptions, approval: { request: approvals.request } });
  const handler = createConsoleHandler(runtime, { token: TOKEN, approvals, ...consoleOptions });
  const responses: ServerResponse[] = [];
  const server = createServer((req, res) => {
    responses.push(res);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    runtime,
    approvals,
    handler,
    base,
    responses,
    async close() {
      handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
    },
  };
}

export interface Reply {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

export function fetchRaw(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

export interface Browser {
  /** The `name=value` pair a browser sends back. */
  cookie: string;
  /** The page's CSRF value, read from the page as its script does. */
  csrf: string;
}

/** Signs in as the form does (a urlencoded POST of the token), then reads the page for its CSRF value. */
export async function signIn(base: string, token = TOKEN): Promise<Browser> {
  const reply = await fetchRaw(`${base}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
  });
  if (reply.status !== 303) throw new Error(`sign-in answered ${reply.status}: ${reply.body}`);
  const cookie = reply.headers['set-cookie']![0]!.split(';')[0]!;
  const page = await fetchRaw(`${base}/`, { headers: { cookie } });
  const csrf = /name="shellring-csrf" content="([^"]*)"/.exec(page.body)![1]!;
  return { cookie, csrf };
}
