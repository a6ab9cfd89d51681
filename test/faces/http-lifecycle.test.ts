// The HTTP face as an operator runs it: health and readiness, session and command limits, idle expiry, drain, logs
// and bad input — over real HTTP with the SDK client.
import { spawn, spawnSync } from 'node:child_process';
import { connect as tcpConnect } from 'node:net';
import { request } from 'node:http';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { serveHttp, type HttpServeOptions, type HttpServer } from '../../src/faces/mcp/index.js';
import { processesWith } from '../helpers/processes.js';
import { call, cli, httpTransport, jobIdOf, newClient, spillPathOf, textOf, workdir, type TestClient } from './helpers.js';
import { until } from '../helpers/until.js';

const work = workdir('http-lifecycle');
const TOKEN = 'lifecycle-token-0123456789abcdef';
const servers: HttpServer[] = [];
const clients: TestClient[] = [];

afterAll(async () => {
  await Promise.all(clients.map((tc) => tc.client.close().catch(() => {})));
  await Promise.all(servers.map((server) => server.close()));
  rmSync(work, { recursive: true, force: true });
});

async function start(options: HttpServeOptions = {}): Promise<{ server: HttpServer; logs: Record<string, unknown>[] }> {
  const logs: Record<string, unknown>[] = [];
  const logger = pino({}, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const server = await serveHttp({ port: 0, cwd: work, token: TOKEN, logger, ...options });
  servers.push(server);
  return { server, logs };
}

async function connect(server: HttpServer, name = 'client'): Promise<TestClient> {
  const tc = newClient(name);
  await tc.client.connect(httpTransport(server.url, TOKEN));
  clients.push(tc);
  return tc;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function raw(server: HttpServer, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, method: init.method ?? 'GET', headers: init.headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN}` };
const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

describe('health, readiness and the session limit', () => {
  it('answers /healthz and /readyz without a token; 503 with Retry-After and a JSON-RPC error past --max-sessions', async () => {
    const { server, logs } = await start({ maxSessions: 2 });
    expect(await raw(server, '/healthz')).toMatchObject({ status: 200, body: 'ok\n' });
    expect(await raw(server, '/readyz')).toMatchObject({ status: 200, body: 'ready\n' });
    const first = await connect(server, 'one');
    await connect(server, 'two');
    expect(await raw(server, '/readyz')).toMatchObject({ status: 503, body: 'at the session limit (2)\n' });
    const third = await raw(server, '/mcp', { method: 'POST', headers: mcpHeaders, body: initialize });
    expect(third.status).toBe(503);
    expect(third.headers['retry-after']).toBe('5');
    expect(JSON.parse(third.body)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32003, message: 'Service unavailable: this server is at its session limit (2); close an unused session or retry later' },
      id: null,
    });
    const sdk = newClient('three');
    await expect(sdk.client.connect(httpTransport(server.url, TOKEN))).rejects.toThrow(/session limit \(2\)/);
    expect(logs.some((line) => line.event === 'refused' && line.refusal === 'session-limit')).toBe(true);
    // A session that ends frees its place.
    await (first.client.transport as ReturnType<typeof httpTransport>).terminateSession();
    await first.client.close();
    await until(() => server.sessionIds().length === 1, 10_000, 'the session to close');
    expect((await raw(server, '/readyz')).status).toBe(200);
    await connect(server, 'four');
  });
});

describe('command caps', () => {
  it('refuses a command past the per-session cap and the instance cap, with clear errors, and admits again after job_kill', async () => {
    const { server } = await start({ maxCommandsPerSession: 2, maxCommands: 3 });
    const a = await connect(server, 'a');
    const b = await connect(server, 'b');
    const marker = `41.${process.pid}7`;
    const bg = { command: `sleep ${marker}`, description: 'hold a command slot', run_in_background: true };
    const first = jobIdOf(textOf(await call(a.client, 'bash', bg)));
    jobIdOf(textOf(await call(a.client, 'bash', bg)));
    const refused = await call(a.client, 'bash', { command: 'echo never', description: 'one command too many' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe(
      'Error: too many commands running in this session (limit: 2); wait for one to finish or stop a background job with job_kill, then retry',
    );
    // Job tools still work at the cap.
    expect(textOf(await call(a.client, 'job_list', {}))).toContain(first);
    jobIdOf(textOf(await call(b.client, 'bash', bg)));
    const instance = await call(b.client, 'bash', { command: 'echo never', description: 'past the instance cap' });
    expect(textOf(instance)).toBe(
      'Error: this server is running as many commands as it allows for all sessions (limit: 3); nothing ran, retry in a moment',
    );
    await call(a.client, 'job_kill', { job_id: first });
    await call(a.client, 'job_output', { job_id: first, wait: true, timeout_ms: 10_000 });
    expect(textOf(await call(b.client, 'bash', { command: 'echo now', description: 'runs after a slot freed' }))).toBe('now\n');
    await server.close();
    await until(() => processesWith(`sleep ${marker}`).length === 0, 15_000, 'the jobs to end');
  });
});

describe('idle expiry', () => {
  /** A clock the test moves: expiry then depends on what the test does, never on how fast a loaded host runs it.
   * `swept()` waits until the idle sweep has read it `count` times since the call (each sweep reads it, synchronously
   * deciding every expiry): sweeps that saw the clock as it is now, however slowly the host runs them. */
  function manualClock(): { now: () => number; advance: (ms: number) => void; swept: (count?: number) => Promise<unknown> } {
    let now = 0;
    let reads = 0;
    return {
      now: () => {
        reads += 1;
        return now;
      },
      advance: (ms) => void (now += ms),
      swept: (count = 6) => {
        const from = reads;
        return until(() => reads - from >= count, 20_000, 'the idle sweep to read the clock');
      },
    };
  }

  it('closes a session idle past --idle-timeout: jobs killed, spill removed, logged; its id is then unknown', async () => {
    const clock = manualClock();
    const { server, logs } = await start({ idleTimeoutMs: 1000, clock: clock.now });
    const tc = await connect(server, 'idle');
    const sessionId = tc.client.transport!.sessionId!;
    const marker = `42.${process.pid}1`;
    await call(tc.client, 'bash', { command: `sleep ${marker}`, description: 'a job left behind', run_in_background: true });
    const spill = spillPathOf(textOf(await call(tc.client, 'bash', { command: 'seq 1 100000', description: 'print many numbers' })));
    expect(existsSync(spill)).toBe(true);
    await until(() => processesWith(`sleep ${marker}`).length > 0, 10_000, 'the job to start');
    clock.advance(999);
    // Several sweeps run while the session is one millisecond short of its timeout.
    await clock.swept();
    expect(server.sessionIds()).toContain(sessionId);
    clock.advance(1);
    await until(() => !server.sessionIds().includes(sessionId), 15_000, 'the session to expire');
    await until(() => processesWith(`sleep ${marker}`).length === 0, 15_000, 'the job to be killed');
    await until(() => !existsSync(spill), 10_000, 'the spill file to be removed');
    expect(logs.find((line) => line.event === 'session.expired')).toMatchObject({ session: sessionId, msg: 'session expired (idle)' });
    const after = await raw(server, '/mcp', {
      method: 'POST',
      headers: { ...mcpHeaders, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
    });
    expect(after.status).toBe(404);
    expect(JSON.parse(after.body).error).toEqual({ code: -32001, message: 'Session not found' });
  });

  it('keeps a session whose call outlasts the idle timeout', async () => {
    const clock = manualClock();
    const { server } = await start({ idleTimeoutMs: 1000, clock: clock.now });
    const tc = await connect(server, 'busy');
    const sessionId = tc.client.transport!.sessionId;
    const marker = `43.${process.pid}1`;
    const answer = call(tc.client, 'bash', { command: `sleep ${marker} & wait; echo still-here`, description: 'outlast the idle timeout' });
    await until(() => processesWith(`sleep ${marker}`).length > 0, 10_000, 'the call to start');
    clock.advance(5000);
    // Sweeps run meanwhile; the call in flight keeps the session.
    await clock.swept();
    expect(server.sessionIds()).toContain(sessionId);
    spawnSync('pkill', ['-f', `^sleep ${marker}$`]);
    expect(textOf(await answer)).toBe('still-here\n');
    // Idle time counts from the call's end: sweeps after it leave the session open.
    await clock.swept();
    expect(server.sessionIds()).toContain(sessionId);
    clock.advance(1000);
    await until(() => !server.sessionIds().includes(sessionId), 15_000, 'the session to expire once idle');
  });
});

describe('drain', () => {
  it('lets calls in flight finish, refuses new sessions and calls, then closes', async () => {
    const { server, logs } = await start();
    const tc = await connect(server, 'draining');
    // The call in flight ends when the test lets it, so the refusals below happen during the drain however slow the host.
    const inFlight = call(tc.client, 'bash', { command: 'until [ -e go-drain ]; do sleep 0.05; done; echo finished', description: 'finish during the drain' });
    await until(() => logs.some((line) => line.event === 'call.started'), 10_000, 'the call to start');
    const drained = server.drain(20_000);
    expect(server.draining).toBe(true);
    expect((await raw(server, '/readyz')).status).toBe(503);
    const fresh = await raw(server, '/mcp', { method: 'POST', headers: mcpHeaders, body: initialize });
    expect(fresh.status).toBe(503);
    expect(JSON.parse(fresh.body).error.message).toBe('Service unavailable: this server is shutting down and opens no new sessions');
    const refused = await call(tc.client, 'bash', { command: 'echo late', description: 'arrives during the drain' });
    expect(textOf(refused)).toBe('Error: this server is shutting down: the call did not run; start a new session to continue');
    writeFileSync(join(work, 'go-drain'), '');
    expect(textOf(await inFlight)).toBe('finished\n');
    expect(await drained).toBe(0);
    expect(server.sessionIds()).toEqual([]);
    expect(logs.find((line) => line.event === 'session.shutdown')).toBeTruthy();
  });

  it('cuts calls still running at the drain timeout', async () => {
    const { server } = await start();
    const tc = await connect(server, 'slow');
    const marker = `43.${process.pid}9`;
    void call(tc.client, 'bash', { command: `sleep ${marker}`, description: 'outlive the drain' }).catch(() => {});
    await until(() => processesWith(`sleep ${marker}`).length > 0, 10_000, 'the call to start');
    expect(await server.drain(300)).toBe(1);
    await until(() => processesWith(`sleep ${marker}`).length === 0, 15_000, 'the command to be killed');
  });
});

describe('shellring serve and SIGTERM', () => {
  it('drains on SIGTERM: the call in flight finishes, then the process exits 0; logs are JSON lines', async () => {
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--cwd', work, '--drain-timeout', '20000'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, SHELLRING_TOKEN: TOKEN },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const url = await until(() => /^shellring: MCP server listening on (\S+)\n/.exec(stderr)?.[1], 15_000, 'the URL');
    const tc = newClient('sigterm');
    await tc.client.connect(httpTransport(url, TOKEN));
    const inFlight = call(tc.client, 'bash', { command: 'until [ -e go-sigterm ]; do sleep 0.05; done; echo finished', description: 'finish during the drain' });
    await until(() => stderr.includes('"event":"call.started"'), 10_000, 'the call to start');
    child.kill('SIGTERM');
    await until(() => stderr.includes('"event":"drain.started"'), 10_000, 'the drain to start');
    writeFileSync(join(work, 'go-sigterm'), '');
    expect(textOf(await inFlight)).toBe('finished\n');
    expect(await exited).toBe(0);
    const lines = stderr.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line.event)).toEqual(
      expect.arrayContaining(['server.listening', 'session.opened', 'call.started', 'drain.started', 'call.ended', 'session.shutdown', 'drain.finished', 'server.stopped']),
    );
    expect(lines.find((line) => line.event === 'drain.finished')).toMatchObject({ callsCut: 0 });
    await tc.client.close().catch(() => {});
  });
});

describe('logs', () => {
  it('logs session and call lines without command text or output unless asked', async () => {
    for (const logCommands of [false, true]) {
      const { server, logs } = await start({ logCommands });
      const tc = await connect(server, 'logged');
      await call(tc.client, 'bash', { command: 'echo secret-output; exit 3', description: 'fail with a marker' });
      await tc.client.close();
      const started = logs.find((line) => line.event === 'call.started')!;
      const ended = logs.find((line) => line.event === 'call.ended')!;
      expect(started).toMatchObject({ session: tc.client.transport?.sessionId ?? started.session, tool: 'bash' });
      expect(ended).toMatchObject({ tool: 'bash', outcome: 'exit-nonzero', exitCode: 3, call: started.call });
      expect(typeof ended.durationMs).toBe('number');
      const text = JSON.stringify(logs);
      expect(text).not.toContain('secret-output\\n');
      if (logCommands) expect(started.command).toBe('echo secret-output; exit 3');
      else expect(text).not.toContain('echo secret-output');
      expect(logs.find((line) => line.event === 'session.opened')).toBeTruthy();
    }
  });
});

describe('bad input', () => {
  it('answers malformed JSON-RPC, oversize bodies and unknown sessions with errors, and keeps serving', async () => {
    const { server } = await start({ maxBodyBytes: 4096 });
    const parse = await raw(server, '/mcp', { method: 'POST', headers: mcpHeaders, body: '{"jsonrpc": "2.0", "id": 1, "method": ' });
    expect(parse.status).toBe(400);
    expect(JSON.parse(parse.body).error.code).toBe(-32700);
    const notRpc = await raw(server, '/mcp', { method: 'POST', headers: mcpHeaders, body: '{"hello": "world"}' });
    expect(notRpc.status).toBe(400);
    const big = await raw(server, '/mcp', { method: 'POST', headers: mcpHeaders, body: JSON.stringify({ pad: 'x'.repeat(10_000) }) });
    expect(big.status).toBe(413);
    const unknown = await raw(server, '/mcp', { method: 'POST', headers: { ...mcpHeaders, 'mcp-session-id': 'no-such-session' }, body: initialize });
    expect(unknown.status).toBe(404);
    expect(server.sessionIds()).toEqual([]);
    const tc = await connect(server, 'after-bad-input');
    expect(textOf(await call(tc.client, 'bash', { command: 'echo alive', description: 'prove the server lives' }))).toBe('alive\n');
  });

  function slowClient(server: HttpServer, chunks: string[]): Promise<{ reply: string; ms: number }> {
    return new Promise((resolve) => {
      const began = Date.now();
      const socket = tcpConnect(server.port, '127.0.0.1', () => {
        for (const chunk of chunks) socket.write(chunk);
      });
      let reply = '';
      socket.on('data', (data) => (reply += data.toString()));
      socket.on('close', () => resolve({ reply, ms: Date.now() - began }));
      socket.on('error', () => {});
    });
  }

  it('keeps an idle keep-alive connection open longer than a busy client may take to reuse it', async () => {
    const { server } = await start();
    const socket = tcpConnect(server.port, '127.0.0.1');
    const replies: string[] = [];
    socket.on('data', (data) => replies.push(data.toString()));
    const ask = () => socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`);
    await new Promise((resolve) => socket.once('connect', resolve));
    ask();
    await until(() => replies.join('').includes('ok\n'), 5000, 'the first answer');
    // Node's default keep-alive (5 s) would close here, racing a client that reuses the connection for a POST.
    await new Promise((resolve) => setTimeout(resolve, 6000));
    expect(socket.destroyed).toBe(false);
    ask();
    await until(() => replies.join('').split('ok\n').length === 3, 5000, 'the second answer on the same connection');
    socket.destroy();
  });

  it('drops a client that is too slow with its headers or its body, and keeps serving', async () => {
    const { server } = await start({ headersTimeoutMs: 1000, requestTimeoutMs: 2000 });
    const [headers, body] = await Promise.all([
      slowClient(server, ['POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n']),
      slowClient(server, [
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{"jsonrpc"`,
      ]),
    ]);
    expect(headers.reply).toMatch(/^HTTP\/1\.1 408/);
    expect(headers.ms).toBeLessThan(8000);
    expect(body.ms).toBeLessThan(10_000);
    expect(body.reply === '' || /^HTTP\/1\.1 (408|400)/.test(body.reply)).toBe(true);
    expect((await raw(server, '/healthz')).status).toBe(200);
  });
});
