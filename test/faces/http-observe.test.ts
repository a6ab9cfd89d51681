// What an operator and a reconnecting client see: Prometheus metrics behind the token, and the per-session event
// store replaying missed responses and notices on Last-Event-ID — over real HTTP.
import { request, type IncomingMessage } from 'node:http';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp, type HttpServer } from '../../src/faces/mcp/index.js';
import { call, httpTransport, newClient, workdir } from './helpers.js';
import { until } from '../helpers/until.js';

const work = workdir('http-observe');
const TOKEN = 'observe-token-0123456789abcdef';
let server: HttpServer;

beforeAll(async () => {
  server = await serveHttp({ port: 0, cwd: work, token: TOKEN });
});

afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port: server.port, path, headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
    })
      .on('error', reject)
      .end();
  });
}

function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  if (!line) throw new Error(`no sample ${series} in:\n${text.slice(0, 3000)}`);
  return Number(line.slice(series.length + 1));
}

describe('GET /metrics', () => {
  it('needs the token', async () => {
    expect((await get('/metrics')).status).toBe(401);
  });

  it('reports sessions, calls by outcome, jobs by state, output bytes, pool use and event-loop delay', async () => {
    const tc = newClient('metrics');
    await tc.client.connect(httpTransport(server.url, TOKEN));
    await call(tc.client, 'bash', { command: 'echo hi', description: 'say hi once' });
    await call(tc.client, 'bash', { command: 'exit 3', description: 'exit with status three' });
    await call(tc.client, 'bash', { command: 'seq 1 100000', description: 'print many numbers' });
    await call(tc.client, 'bash', { command: 'sleep 30', description: 'a job that keeps running', run_in_background: true });
    await call(tc.client, 'no_such_tool', {});
    const { status, type, body } = await get('/metrics', { authorization: `Bearer ${TOKEN}` });
    expect(status).toBe(200);
    expect(type).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(sample(body, 'shellring_sessions')).toBe(1);
    expect(sample(body, 'shellring_sessions_opened_total')).toBe(1);
    expect(sample(body, 'shellring_tool_calls_started_total{tool="bash"}')).toBe(4);
    expect(sample(body, 'shellring_tool_calls_started_total{tool="other"}')).toBe(1);
    expect(sample(body, 'shellring_tool_calls_finished_total{tool="bash",outcome="ok"}')).toBe(2);
    expect(sample(body, 'shellring_tool_calls_finished_total{tool="bash",outcome="exit-nonzero"}')).toBe(1);
    expect(sample(body, 'shellring_tool_calls_finished_total{tool="bash",outcome="background"}')).toBe(1);
    expect(sample(body, 'shellring_tool_calls_finished_total{tool="other",outcome="error"}')).toBe(1);
    expect(sample(body, 'shellring_tool_call_duration_seconds_count{tool="bash"}')).toBe(4);
    expect(sample(body, 'shellring_jobs{state="running"}')).toBe(1);
    // seq 1 100000 writes 588895 bytes, all of them kept in its spill file.
    expect(sample(body, 'shellring_output_captured_bytes_total')).toBeGreaterThanOrEqual(588_895 + 3);
    expect(sample(body, 'shellring_output_spilled_bytes_total')).toBeGreaterThanOrEqual(588_895);
    const utilization = sample(body, 'shellring_worker_pool_utilization');
    expect(utilization).toBeGreaterThan(0);
    expect(utilization).toBeLessThanOrEqual(1);
    expect(sample(body, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
    await (tc.client.transport as ReturnType<typeof httpTransport>).terminateSession();
    await tc.client.close();
    await until(async () => /shellring_sessions_closed_total\{reason="closed"\} 1/.test((await get('/metrics', { authorization: `Bearer ${TOKEN}` })).body), 10_000, 'the close to count');
  });
});

/** A raw SSE reader: collects `{id, data}` events from a response until `done` says stop, then drops the connection. */
function sse(res: IncomingMessage, done: (events: { id?: string; data: string }[]) => boolean): Promise<{ id?: string; data: string }[]> {
  return new Promise((resolve) => {
    const events: { id?: string; data: string }[] = [];
    let buffer = '';
    const finish = () => {
      res.destroy();
      resolve(events);
    };
    res.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let cut;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const id = /^id: ?(.*)$/m.exec(block)?.[1];
        const data = [...block.matchAll(/^data: ?(.*)$/gm)].map((m) => m[1]).join('\n');
        if (!block.startsWith(':')) events.push({ id, data });
      }
      if (done(events)) finish();
    });
    res.on('end', () => resolve(events));
    res.on('error', () => resolve(events));
  });
}

function open(method: string, headers: Record<string, string>, body?: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path: '/mcp', method, headers }, resolve);
    req.on('error', reject);
    req.end(body);
  });
}

/** A command part that waits for the test to create `name` in the working directory. */
const gate = (name: string) => `until [ -e ${name} ]; do sleep 0.05; done`;

/** The bytes the sessions' event stores keep, as /metrics reports them. */
async function retainedEvents(): Promise<number> {
  return sample((await get('/metrics', { authorization: `Bearer ${TOKEN}` })).body, 'shellring_retained_bytes{store="events"}');
}

describe('resumability (event store)', () => {
  const base = {
    authorization: `Bearer ${TOKEN}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
  };
  let session: Record<string, string>;

  beforeAll(async () => {
    const init = await open(
      'POST',
      base,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-resume', version: '1' } },
      }),
    );
    session = { ...base, 'mcp-session-id': String(init.headers['mcp-session-id']) };
    await sse(init, (events) => events.some((e) => e.data.includes('"result"')));
    (await open('POST', session, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }))).resume();
  });

  it('replays a tool result the client missed when it resumes with Last-Event-ID', async () => {
    const ended = new Promise<void>((resolve) => {
      const off = server.runtime.on('call', (event) => {
        if (event.type === 'ended' && event.tool === 'bash') {
          off();
          resolve();
        }
      });
    });
    const callRes = await open(
      'POST',
      session,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'bash', arguments: { command: `${gate('go-resume')}; echo resumed`, description: 'answer when let go' } },
      }),
    );
    // The priming event hands out the cursor; then the client drops the connection before the result.
    const primed = await sse(callRes, (events) => events.some((e) => e.id !== undefined));
    const cursor = primed.find((e) => e.id !== undefined)!.id!;
    // The call ends while no stream is open (it waits for the test until then): its result is stored, and only the
    // resume can deliver it.
    writeFileSync(join(work, 'go-resume'), '');
    await ended;
    const resumed = await sse(await open('GET', { ...session, 'last-event-id': cursor }), (events) =>
      events.some((e) => e.data.includes('"id":7')),
    );
    const result = JSON.parse(resumed.find((e) => e.data.includes('"id":7'))!.data);
    expect(result.result.content[0].text).toBe('resumed\n');
  });

  it('keeps a completion notice sent while no stream was open, and delivers it on the next stream', async () => {
    const command = `${gate('go-notice')}; echo bg`;
    const start = await open(
      'POST',
      session,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/call',
        params: { name: 'bash', arguments: { command, description: 'a background job', run_in_background: true } },
      }),
    );
    const started = await sse(start, (events) => events.some((e) => e.data.includes('"id":8')));
    const jobId = /started background job (\S+?)"/.exec(started.find((e) => e.data.includes('"id":8'))!.data)![1]!;
    // No stream is open now. The job ends once the test lets it, and its notice is stored when the session's store
    // grows: only then does the next stream open.
    const stored = await retainedEvents();
    writeFileSync(join(work, 'go-notice'), '');
    await until(async () => (await retainedEvents()) > stored, 10_000, 'the notice to be stored');
    const stream = await sse(await open('GET', session), (events) => events.some((e) => e.data.includes(`background job ${jobId} `)));
    const notice = JSON.parse(stream.find((e) => e.data.includes(`background job ${jobId} `))!.data);
    expect(notice.method).toBe('notifications/message');
    expect(notice.params.data).toBe(`background job ${jobId} (bash: ${command}) finished [status: completed, exit code: 0]. Read its output with job_output.`);
  });
});
