// Every session a client can make counts against --max-sessions: 2026-07-28 handles and default states share the
// limit with 2025-11-25 sessions; a refused session_open says why, nothing is opened, and a closed 2025 session or
// an expired state frees its slot. One credential is one principal however its header is spelled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { admissionErrors } from '../../src/contract/index.js';
import { serveHttp, type HttpServer } from '../../src/faces/mcp/index.js';
import { httpTransport, newClient, rawRequest, workdir } from './helpers.js';
import { until } from '../helpers/until.js';
import { modernClient, textOfResult, type ModernClient } from './modern-helpers.js';

const LIMIT = 3;
const work = workdir('mcp-2026-sessions');
let server: HttpServer;
let now = 0;
let mc: ModernClient;

const transport = (authorization = `Bearer ${server.token}`) =>
  new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization } } });

async function tool(client: ModernClient, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean; session?: string }> {
  const result = (await client.client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: { session?: string } };
  return { text: textOfResult(result), isError: result.isError === true, session: result.structuredContent?.session };
}

const refusal = `Error: ${admissionErrors.sessionsFull(LIMIT)}`;
const states = () => server.runtime.sessions().length;

beforeAll(async () => {
  // A fake idle clock: nothing expires until the test moves it (the sweep runs every 100 ms at this timeout).
  server = await serveHttp({ port: 0, cwd: work, maxSessions: LIMIT, idleTimeoutMs: 1000, clock: () => now });
  mc = await modernClient(transport(), 'sessions');
});

afterAll(async () => {
  await mc?.client.close();
  await server?.close();
});

describe('the session limit under 2026-07-28', () => {
  it(`opens ${LIMIT} handles and refuses handle ${LIMIT + 1} with the reason; the open ones keep working`, async () => {
    const handles: string[] = [];
    for (let i = 0; i < LIMIT; i += 1) {
      const opened = await tool(mc, 'session_open', {});
      expect(opened.isError, opened.text).toBe(false);
      handles.push(opened.session!);
    }
    expect(states()).toBe(LIMIT);
    expect(await tool(mc, 'session_open', {})).toEqual({ text: refusal, isError: true, session: undefined });
    expect(states()).toBe(LIMIT);
    // A default state is a session too: refused alike, while every handle still runs commands.
    expect(await tool(mc, 'bash', { command: 'echo default', description: 'print a word' })).toMatchObject({ text: refusal, isError: true });
    for (const handle of handles) expect((await tool(mc, 'bash', { command: 'echo in-handle', description: 'print a word', session: handle })).text).toBe('in-handle\n');
    // A 2025 client meets the same limit at initialize.
    const legacy = newClient('legacy-at-limit');
    await expect(legacy.client.connect(httpTransport(server.url, server.token))).rejects.toThrow(/session limit \(3\)/);
  });

  it('frees the slots of states idle past the timeout', async () => {
    now += 1000;
    await until(() => states() === 0, 20_000, 'the idle states to expire');
    const opened = await tool(mc, 'session_open', {});
    expect(opened.isError, opened.text).toBe(false);
    expect(states()).toBe(1);
  });

  it('shares the limit with 2025 sessions, and a closed 2025 session frees its slot', async () => {
    // One handle is open from the test before; a 2025 session and the default state fill the server.
    const legacy = newClient('legacy-beside');
    const legacyTransport = httpTransport(server.url, server.token);
    await legacy.client.connect(legacyTransport);
    expect((await tool(mc, 'bash', { command: 'echo default', description: 'print a word' })).text).toBe('default\n');
    expect(states()).toBe(LIMIT);
    expect(await tool(mc, 'session_open', {})).toMatchObject({ text: refusal, isError: true });
    const { body } = await rawRequest(server.port, '/metrics', { headers: { authorization: `Bearer ${server.token}` } });
    expect(body).toMatch(/^shellring_sessions 3$/m);
    expect(body).toMatch(/^shellring_refused_total\{reason="session-limit"\} [1-9]/m);
    await legacyTransport.terminateSession();
    await legacy.client.close();
    await until(() => states() === LIMIT - 1, 20_000, 'the 2025 session to close');
    expect((await tool(mc, 'session_open', {})).isError).toBe(false);
  });

  it('keeps one default state per credential, however the Authorization header spells the scheme', async () => {
    now += 1000;
    await until(() => states() === 0, 20_000, 'the idle states to expire');
    const spellings = ['bearer', 'BEARER', 'Bearer  ', 'bEaReR   '];
    for (const scheme of spellings) {
      const other = await modernClient(transport(`${scheme} ${server.token}`), 'spelling');
      try {
        expect((await tool(other, 'bash', { command: 'echo same', description: 'print a word' })).text).toBe('same\n');
      } finally {
        await other.client.close();
      }
    }
    expect(states()).toBe(1);
  });
});
