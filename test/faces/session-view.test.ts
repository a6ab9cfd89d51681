// What observers (the web console) see of MCP sessions: the client's name as the session's label, at 2025-11-25
// (initialize) and 2026-07-28 (each request's clientInfo), cleaned when hostile; and a 2026 approval round trip as
// one call: the first request ends suspended, the retry that answers it continues the same call id.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { serveHttp, type HttpServer } from '../../src/faces/mcp/index.js';
import type { CallEvent } from '../../src/index.js';
import { STATE_TTL_MS } from '../../src/faces/mcp/modern/request-state.js';
import { call, httpTransport, textOf, workdir } from './helpers.js';
import { Client as Client2025 } from '@modelcontextprotocol/sdk/client/index.js';
import { modernClient, RawModern } from './modern-helpers.js';

const work = workdir('session-view');
let server: HttpServer;

const modernTransport = () => new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${server.token}` } } });

/** The labels of the open sessions, by session id. */
const labels = () => new Map(server.runtime.sessions().map((session) => [session.id, session.label]));

beforeAll(async () => {
  server = await serveHttp({ port: 0, cwd: work, sandboxMode: 'read-only' });
});

afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

describe('session labels from MCP clients', () => {
  it('names a 2025-11-25 session by its client: the title when it gave one, else the name', async () => {
    const titled = new Client2025({ name: 'build-agent', title: 'Build agent', version: '1.0.0' });
    const named = new Client2025({ name: 'docs-writer', version: '2.0.0' });
    const titledTransport = httpTransport(server.url, server.token);
    const namedTransport = httpTransport(server.url, server.token);
    await titled.connect(titledTransport);
    await named.connect(namedTransport);
    // The official 2026 SDK pinned to the older revision initializes too.
    const legacy = new Client({ name: 'legacy-mode', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    const legacyTransport = modernTransport();
    await legacy.connect(legacyTransport);
    try {
      expect(labels().get(titledTransport.sessionId!)).toBe('Build agent');
      expect(labels().get(namedTransport.sessionId!)).toBe('docs-writer');
      expect(legacy.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      expect(labels().get(legacyTransport.sessionId!)).toBe('legacy-mode');
      expect(textOf(await call(titled, 'bash', { command: 'echo $DSH_SESSION_ID', description: 'Print the session id' }))).toBe(`${titledTransport.sessionId}\n`);
    } finally {
      await Promise.all([titled.close(), named.close(), legacy.close()]);
    }
  });

  it("names a 2026-07-28 state by the clientInfo its requests carry, and cleans what a client may send", async () => {
    const mc = await modernClient(modernTransport(), 'review-agent');
    const raw = new RawModern(modernTransport());
    await raw.start();
    try {
      const before = new Set(labels().keys());
      await mc.client.callTool({ name: 'bash', arguments: { command: 'true', description: 'Do nothing' } });
      const opened = [...labels()].filter(([id]) => !before.has(id));
      expect(opened.map(([, label]) => label)).toEqual(['review-agent']);
      // Another client of the same principal shares its default state: the latest request names it.
      const hostile = `\u001b[31mred\u0007 name\n${'x'.repeat(10_000)}`;
      const reply = await raw.request('tools/call', { name: 'session_open', arguments: {} });
      expect(reply.error).toBeUndefined();
      const handle = (reply.result!.structuredContent as { session: string }).session;
      await rawCall(raw, handle, hostile);
      const label = labels().get(server.runtime.sessions().at(-1)!.id)!;
      expect(label).toMatch(/^\[31mred {2}name x+$/);
      expect([...label]).toHaveLength(200);
      // A name of nothing but control characters leaves the label as it was.
      await rawCall(raw, handle, '\u0000\u0001');
      expect(labels().get(server.runtime.sessions().at(-1)!.id)).toBe(label);
    } finally {
      await mc.client.close();
      await raw.close();
    }
  });
});

/** A bash call in `handle`'s state whose envelope names the client `name`. */
async function rawCall(raw: RawModern, handle: string, name: string): Promise<void> {
  const reply = await raw.requestAs({ name, version: '1' }, 'tools/call', { name: 'bash', arguments: { session: handle, command: 'true', description: 'Do nothing' } });
  expect(reply.error).toBeUndefined();
}

describe('a 2026-07-28 approval round trip', () => {
  it('is one call to observers: started, ended suspended, started again with the same id, ended with the result', async () => {
    const events: CallEvent[] = [];
    const off = server.runtime.on('call', (event) => events.push(event));
    const mc = await modernClient(modernTransport(), 'approver');
    try {
      const args = { command: 'echo once > approved.txt && cat approved.txt', description: 'Write the approved file', sandbox_permissions: 'workspace-write', justification: 'the file records the run' };
      const asked = Date.now();
      const result = await mc.client.callTool({ name: 'bash', arguments: args });
      expect((result.content as { text: string }[])[0]!.text).toBe('once\n');
      const mine = events.filter((event) => event.tool === 'bash' && (event.type === 'ended' || (event.args as { description?: string }).description === args.description));
      expect(mine.map((event) => event.type)).toEqual(['started', 'ended', 'started', 'ended']);
      expect(new Set(mine.map((event) => event.callId)).size).toBe(1);
      const [first, second] = [mine[1], mine[3]] as Extract<CallEvent, { type: 'ended' }>[];
      expect(first!.suspendedUntil).toBeGreaterThanOrEqual(asked + STATE_TTL_MS);
      expect(first!.suspendedUntil).toBeLessThanOrEqual(Date.now() + STATE_TTL_MS);
      expect(second!.suspendedUntil).toBeUndefined();
      // A rejected one ends in one call too, with the refusal as its result.
      mc.answer.decision = 'reject';
      events.length = 0;
      const rejected = await mc.client.callTool({ name: 'bash', arguments: { ...args, command: 'echo no > rejected.txt' } });
      expect(rejected.isError).toBe(true);
      const ends = events.filter((event): event is Extract<CallEvent, { type: 'ended' }> => event.type === 'ended');
      expect(ends.map((event) => event.suspendedUntil === undefined)).toEqual([false, true]);
      expect(ends[0]!.callId).toBe(ends[1]!.callId);
    } finally {
      off();
      await mc.client.close();
    }
  });

  it('starts a new call for a new request that carries no state', async () => {
    const events: CallEvent[] = [];
    const off = server.runtime.on('call', (event) => events.push(event));
    const mc = await modernClient(modernTransport(), 'two-calls');
    try {
      for (let i = 0; i < 2; i += 1) await mc.client.callTool({ name: 'bash', arguments: { command: 'true', description: 'Do nothing' } });
      expect(new Set(events.map((event) => event.callId)).size).toBe(2);
    } finally {
      off();
      await mc.client.close();
    }
  });
});
