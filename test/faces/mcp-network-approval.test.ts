// A host the session's domain policy does not list, put to the person behind an MCP client: form elicitation on
// 2025-11-25 (allowed once, for the session, refused), and on 2026-07-28, whose calls cannot ask while a command
// runs, a refusal that says nobody could be asked.
import { createServer, type Server } from 'node:http';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { serveHttp, type HttpServer } from '../../src/faces/mcp/index.js';
import { call, elicitingClient, textOf, workdir } from './helpers.js';
import { checkedCall, modernClient, textOfResult } from './modern-helpers.js';

const work = workdir('mcp-network-approval');
let server: HttpServer;
let web: Server;
let port: number;
const hosts = ['asked.test', 'kept.test', 'refused.test', 'plain.test', 'modern.test'];

beforeAll(async () => {
  web = createServer((req, res) => res.end(`hello ${req.url}\n`));
  port = await new Promise<number>((resolve) => web.listen(0, '127.0.0.1', () => resolve((web.address() as { port: number }).port)));
  server = await serveHttp({
    port: 0,
    cwd: work,
    runtimeOptions: {
      sandbox: {
        mode: 'workspace-write',
        network: { mode: 'domains', allow: [], ask: true, testHostMap: Object.fromEntries(hosts.map((host) => [host, '127.0.0.1'])) },
      },
    },
  });
});

afterAll(async () => {
  await server.close();
  web.close();
  rmSync(work, { recursive: true, force: true });
});

const connect = (name: string, answer?: (request: ElicitRequest) => ElicitResult) => elicitingClient(server, name, answer);

const curl = (host: string, path: string) => ({ command: `curl -sS http://${host}:${port}/${path}`, description: 'reach a host' });
const blocked = (host: string, reason: string) => `[network: blocked ${host}:${port} — ${reason}]`;

describe('network approval over MCP 2025-11-25', () => {
  it('asks the client’s user with the host, the port and the three decisions, and lets the connection through once', async () => {
    const decisions = ['allow-once', 'reject'];
    const tc = await connect('network-once', () => ({ action: 'accept', content: { decision: decisions.shift()! } }));
    expect(textOf(await call(tc.client, 'bash', curl('asked.test', 'one')))).toBe('hello /one\n');
    expect(tc.asked).toHaveLength(1);
    const { message, requestedSchema } = tc.asked[0]!.params as { message: string; requestedSchema: { properties: { decision: { enum: string[]; description: string } } } };
    expect(message).toMatch(
      new RegExp(`^A command in session \\S+ connects to asked\\.test:${port}, which its network policy neither allows nor denies\\.\\nThe connection waits for your decision \\(10 minutes at most\\)\\.\\nAllow it once, or always for this session\\?$`),
    );
    expect(requestedSchema.properties.decision.enum).toEqual(['allow-once', 'allow-always', 'reject']);
    expect(requestedSchema.properties.decision.description).toBe(
      `allow-once lets the connections waiting on this request through; allow-always lets asked.test:${port} through for the rest of this session; reject refuses them.`,
    );
    // Once means once: the next connection asks again, and this time the person refuses.
    const again = textOf(await call(tc.client, 'bash', curl('asked.test', 'two')));
    expect(again.endsWith(blocked('asked.test', 'not in the allowed hosts; a person refused it')), again).toBe(true);
    expect(tc.asked).toHaveLength(2);
    await tc.client.close();
  });

  it('keeps a host allowed for the rest of the session after allow-always', async () => {
    const tc = await connect('network-always', () => ({ action: 'accept', content: { decision: 'allow-always' } }));
    expect(textOf(await call(tc.client, 'bash', curl('kept.test', 'a')))).toBe('hello /a\n');
    expect(textOf(await call(tc.client, 'bash', curl('kept.test', 'b')))).toBe('hello /b\n');
    expect(tc.asked).toHaveLength(1);
    await tc.client.close();
  });

  it('reads a declined form as a refusal, and a client that cannot elicit as nobody to ask', async () => {
    const declines = await connect('network-declines', () => ({ action: 'decline' }));
    const refused = textOf(await call(declines.client, 'bash', curl('refused.test', 'x')));
    expect(refused.endsWith(blocked('refused.test', 'not in the allowed hosts; a person refused it')), refused).toBe(true);
    await declines.client.close();
    const plain = await connect('network-plain');
    const nobody = textOf(await call(plain.client, 'bash', curl('plain.test', 'x')));
    expect(nobody.endsWith(blocked('plain.test', 'not in the allowed hosts, and nobody could be asked to allow it')), nobody).toBe(true);
    await plain.client.close();
  });
});

describe('network approval over MCP 2026-07-28', () => {
  it('refuses and says nobody could be asked: a running command cannot turn its call into a question', async () => {
    const mc = await modernClient(
      new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${server.token}` } } }),
      'network-modern',
    );
    const text = textOfResult(await checkedCall(mc, 'bash', curl('modern.test', 'x')));
    expect(text.endsWith(blocked('modern.test', 'not in the allowed hosts, and nobody could be asked to allow it')), text).toBe(true);
    expect(mc.asked).toEqual([]);
    await mc.client.close();
  });
});
