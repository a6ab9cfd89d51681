// Shared pieces of the face tests: the built CLI, the SDK client and the texts of results.
import { request } from 'node:http';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, ElicitRequest, ElicitResult, LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { assertConforms } from '../helpers/output-schemas.js';

export const repo = fileURLToPath(new URL('../..', import.meta.url));
/** The compiled executable, as the package's `bin` runs it (`npm test` builds before vitest runs). */
export const cli = join(repo, 'dist/src/cli/main.js');

export function workdir(prefix: string): string {
  // realpath: the tools report resolved paths, and the OS temp dir may sit behind a symlink.
  return realpathSync(mkdtempSync(join(tmpdir(), `shellring-${prefix}-`)));
}

export interface TestClient {
  client: Client;
  notices: LoggingMessageNotification['params'][];
}

/** `name` is the client's name, or its name and the title people see (a console's session list shows it). */
export function newClient(name: string | { name: string; title: string }, capabilities: ConstructorParameters<typeof Client>[1] = {}): TestClient {
  const client = new Client({ ...(typeof name === 'string' ? { name } : name), version: '1.0.0' }, capabilities);
  const notices: TestClient['notices'] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    notices.push(notification.params);
  });
  return { client, notices };
}

/** Each client's listing, fetched once, so every result can be checked against its tool's outputSchema. */
const listings = new WeakMap<Client, Promise<{ name: string; outputSchema?: Record<string, unknown> }[]>>();

/** A tool call whose result, when it succeeds, must conform to the outputSchema its tool lists. */
export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (!listings.has(client)) listings.set(client, client.listTools().then((listed) => listed.tools));
  assertConforms(await listings.get(client)!, name, result);
  return result;
}

export function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

export function jobIdOf(text: string): string {
  const match = /^started background job (\S+)$/.exec(text);
  if (!match) throw new Error(`not a background start: ${JSON.stringify(text)}`);
  return match[1]!;
}

export function spillPathOf(text: string): string {
  const match = /\n\[output truncated; full output: (\/[^\]\n]+)\]$/.exec(text);
  if (!match) throw new Error(`no spill path in: ${JSON.stringify(text.slice(-200))}`);
  return match[1]!;
}

export function seqText(n: number): string {
  let text = '';
  for (let i = 1; i <= n; i += 1) text += `${i}\n`;
  return text;
}

/** The SDK's HTTP client transport, presenting the server's bearer token on every request. */
export function httpTransport(url: string, token: string, options: { sessionId?: string } = {}): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    sessionId: options.sessionId,
  });
}

/** An HTTP answer read whole, for tests that look at statuses and headers the SDK would hide. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request to a local server, answered whole; no client logic in between. */
export function rawRequest(port: number, path: string, { method = 'GET', headers = {}, body }: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A 2025 client over HTTP; with `answer`, it declares form elicitation and answers each request so, kept in `asked`. */
export async function elicitingClient(
  server: { url: string; token: string },
  name: string,
  answer?: (request: ElicitRequest) => ElicitResult,
): Promise<TestClient & { asked: ElicitRequest[] }> {
  const tc = newClient(name, answer ? { capabilities: { elicitation: { form: {} } } } : {});
  const asked: ElicitRequest[] = [];
  if (answer) {
    tc.client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request);
      return answer(request);
    });
  }
  await tc.client.connect(httpTransport(server.url, server.token));
  return { ...tc, asked };
}
