// The MCP server over streamable HTTP, driven by SDK clients: one runtime session per MCP session, kept apart.
import { request } from 'node:http';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BASH_PROMPT, createRuntime, type ListedTool } from '../../src/index.js';
import { serveHttp, type HttpServer } from '../../src/faces/mcp/index.js';
import { processesWith } from '../helpers/processes.js';
import { call, httpTransport, jobIdOf, newClient, seqText, spillPathOf, textOf, workdir, type TestClient } from './helpers.js';
import { until } from '../helpers/until.js';

const work = workdir('mcp-http');
let server: HttpServer;
let listed: ListedTool[];
let a: TestClient;
let b: TestClient;

async function connect(name: string): Promise<TestClient> {
  const tc = newClient(name);
  await tc.client.connect(httpTransport(server.url, server.token));
  return tc;
}

function rawRequest(method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(server.url);
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  const runtime = await createRuntime();
  listed = runtime.listTools();
  await runtime.close();
  server = await serveHttp({ port: 0, cwd: work });
  a = await connect('client-a');
  b = await connect('client-b');
});

afterAll(async () => {
  await a.client.close();
  await b.client.close();
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

describe('shellring serve (streamable HTTP)', () => {
  it('listens on 127.0.0.1 at /mcp on the ephemeral port it reports', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/mcp`);
    expect(server.port).toBeGreaterThan(0);
  });

  it('lists the runtime tools with their exact schemas, and the prompt as instructions', async () => {
    const { tools } = await a.client.listTools();
    expect(
      tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema })),
    ).toEqual(listed);
    expect(a.client.getInstructions()).toContain(BASH_PROMPT);
  });

  it('gives each MCP session its own runtime session', async () => {
    expect(server.sessionIds().sort()).toEqual([a.client.transport!.sessionId, b.client.transport!.sessionId].sort());
    const idA = textOf(await call(a.client, 'bash', { command: 'echo $DSH_SESSION_ID', description: 'print the session id' }));
    expect(idA).toBe(`${(a.client.transport as StreamableHTTPClientTransport).sessionId}\n`);
  });

  it('returns a non-zero exit as a plain result', async () => {
    const result = await call(a.client, 'bash', { command: 'echo failing; exit 3', description: 'exit with status three' });
    expect(textOf(result)).toBe('failing\n[exit code: 3]');
    expect(result.isError).toBeFalsy();
  });

  it('names a spill file holding the whole output of a truncated call', async () => {
    const text = textOf(await call(b.client, 'bash', { command: 'seq 1 100000', description: 'print many numbers' }));
    const spill = spillPathOf(text);
    expect(existsSync(spill)).toBe(true);
    expect(readFileSync(spill, 'utf8')).toBe(seqText(100000));
  });

  it('keeps the sessions from seeing each other’s jobs, and notifies only the owner', async () => {
    const started = await call(a.client, 'bash', {
      command: 'echo from-a; sleep 0.3',
      description: 'a job of client a',
      run_in_background: true,
    });
    const id = jobIdOf(textOf(started));
    for (const [tool, args] of [
      ['job_output', { job_id: id }],
      ['job_kill', { job_id: id }],
    ] as const) {
      const foreign = await call(b.client, tool, args);
      expect(foreign.isError).toBe(true);
      expect(textOf(foreign)).toBe(`Error: job ${id} belongs to another session`);
    }
    expect(textOf(await call(b.client, 'job_list', {}))).toBe('(no background jobs)');
    expect(textOf(await call(a.client, 'job_list', {}))).toMatch(new RegExp(`^${id} \\[bash\\] (running|completed) — echo from-a; sleep 0\\.3$`));
    const notice = await until(
      () => a.notices.find((entry) => String(entry.data).startsWith(`background job ${id} `)),
      15_000,
      'client a’s notice',
    );
    expect(notice).toMatchObject({
      level: 'info',
      data: `background job ${id} (bash: echo from-a; sleep 0.3) finished [status: completed, exit code: 0]. Read its output with job_output.`,
    });
    expect(textOf(await call(a.client, 'job_output', { job_id: id }))).toBe('from-a\n[status: completed, exit code: 0]');
    expect(b.notices.filter((entry) => String(entry.data).includes(id))).toEqual([]);
  });

  it('closes the runtime session, and kills its jobs, when the MCP session ends', async () => {
    const c = await connect('client-c');
    const sessionId = (c.client.transport as StreamableHTTPClientTransport).sessionId!;
    const marker = `33.${process.pid}3`;
    await call(c.client, 'bash', { command: `sleep ${marker}`, description: 'outlive the session', run_in_background: true });
    await until(() => processesWith(`sleep ${marker}`).length > 0, 15_000, 'the job to start');
    await (c.client.transport as StreamableHTTPClientTransport).terminateSession();
    await c.client.close();
    expect(server.sessionIds()).not.toContain(sessionId);
    await until(() => processesWith(`sleep ${marker}`).length === 0, 15_000, 'the job to be killed');
  });

  it('refuses unknown sessions, foreign Host headers and other paths', async () => {
    const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const port = String(server.port);
    const auth = { authorization: `Bearer ${server.token}` };
    const unknown = await rawRequest('POST', { ...json, ...auth, host: `127.0.0.1:${port}`, 'mcp-session-id': 'nope' }, ping);
    expect(unknown.status).toBe(404);
    const rebound = await rawRequest('POST', { ...json, host: `attacker.example:${port}` }, ping);
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).error.message).toBe(`Invalid Host header: attacker.example:${port}`);
    const noSession = await rawRequest('GET', { ...auth, host: `localhost:${port}`, accept: 'text/event-stream' });
    expect(noSession.status).toBe(400);
    const url = new URL(server.url);
    const elsewhere = await new Promise<number>((resolve, reject) => {
      request({ host: url.hostname, port: url.port, path: '/other', method: 'GET', headers: auth }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    expect(elsewhere).toBe(404);
  });
});
