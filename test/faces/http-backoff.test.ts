// Wrong credentials slow down per source address: after 10, 429 with Retry-After (doubling per block) and one log
// line per block, for bearer tokens on the endpoint and sign-ins on the console alike, while the right token passes
// at once from the same address and other addresses are untouched; the table of addresses has a fixed size.
import { spawn } from 'node:child_process';
import { request, type IncomingMessage } from 'node:http';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthBackoff, serveHttp, type HttpServer } from '../../src/faces/mcp/index.js';
import { sourceOf } from '../../src/faces/http/auth-backoff.js';
import { SIGN_IN_TEXTS } from '../../src/faces/console/sign-in-page.js';
import { fetchRaw, mount, TOKEN as CONSOLE_TOKEN, type Mounted } from './console/server.js';
import { cli, workdir, type RawAnswer } from './helpers.js';
import { until } from '../helpers/until.js';

const work = workdir('http-backoff');
const TOKEN = 'correct-horse-battery-staple-0123';
const WRONG = `Bearer ${TOKEN.slice(0, -1)}x`;
const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** A POST of initialize to `port`, from `from` (any 127/8 address is this host). */
function post(port: number, from: string, headers: Record<string, string>, path = '/mcp', body = initialize): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', localAddress: from, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the table of addresses', () => {
  it('keys IPv4 as it is (mapped or not) and IPv6 by its /64', () => {
    expect(sourceOf('10.1.2.3')).toBe('10.1.2.3');
    expect(sourceOf('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(sourceOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(sourceOf('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(sourceOf('2001:db8::7')).toBe('2001:db8:0:0::/64');
    expect(sourceOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(sourceOf(undefined)).toBe('unknown');
  });

  it('holds at most its capacity, however many addresses fail', () => {
    const backoff = new AuthBackoff({ capacity: 64, free: 0, clock: () => 0 });
    for (let i = 0; i < 10_000; i += 1) backoff.failed({ socket: { remoteAddress: `10.0.${i >> 8}.${i & 255}` } } as IncomingMessage);
    expect(backoff.size).toBe(64);
  });
});

describe('bearer tokens on the endpoint', () => {
  let server: HttpServer;
  let now = 1_000_000;
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    server = await serveHttp({ port: 0, cwd: work, token: TOKEN, clock: () => now, logger: pino(sink) });
  });

  afterAll(() => server?.close());

  const backoffLines = () => lines.filter((line) => line.event === 'auth.backoff');

  it('answers the 11th wrong token 429 with Retry-After and a log line; the right token passes at once', async () => {
    for (let i = 0; i < 10; i += 1) expect((await post(server.port, '127.0.0.2', { authorization: WRONG })).status).toBe(401);
    const blocked = await post(server.port, '127.0.0.2', { authorization: WRONG });
    expect(blocked.status).toBe(429);
    expect(blocked.headers['retry-after']).toBe('1');
    expect(JSON.parse(blocked.body).error.message).toBe('Too many wrong credentials from this address: retry after 1 second');
    expect(backoffLines()).toEqual([expect.objectContaining({ level: 40, source: '127.0.0.2', failures: 11, retryAfterSeconds: 1 })]);
    const right = await post(server.port, '127.0.0.2', { authorization: `Bearer ${TOKEN}` });
    expect(right.status).toBe(200);
    expect(right.headers['mcp-session-id']).toBeTruthy();
    // Another scheme is a wrong credential too; no credential at all is no guess.
    expect((await post(server.port, '127.0.0.2', { authorization: 'Basic dTpw' })).status).toBe(429);
    expect((await post(server.port, '127.0.0.2', {})).status).toBe(401);
    // Another address is untouched.
    expect((await post(server.port, '127.0.0.3', { authorization: WRONG })).status).toBe(401);
    expect(backoffLines()).toHaveLength(1);
  });

  it('doubles the block each time one ends, up to a minute', async () => {
    const waits: string[] = [];
    for (let block = 0; block < 8; block += 1) {
      now += 60_000;
      const answer = await post(server.port, '127.0.0.2', { authorization: WRONG });
      waits.push(`${answer.status} ${answer.headers['retry-after']}`);
    }
    expect(waits).toEqual(['429 2', '429 4', '429 8', '429 16', '429 32', '429 60', '429 60', '429 60']);
    expect(backoffLines().map((line) => line.retryAfterSeconds)).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60]);
  });

  it('refuses a flood of 500 wrong tokens from one address with 490 429s, and still takes the right token at once', async () => {
    const answers = await Promise.all(Array.from({ length: 500 }, () => post(server.port, '127.0.0.4', { authorization: WRONG })));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(490);
    expect((await post(server.port, '127.0.0.4', { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  });
});

describe('console sign-ins', () => {
  let mounted: Mounted;
  beforeAll(async () => {
    mounted = await mount();
  });
  afterAll(() => mounted?.close());

  const form = (token: string) =>
    fetchRaw(`${mounted.base}/`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token }).toString() });

  it('answers the 11th wrong sign-in 429 with Retry-After; the right token signs in at once; a wrong bearer counts too', async () => {
    for (let i = 0; i < 10; i += 1) {
      const wrong = await form(`${CONSOLE_TOKEN}x`);
      expect(wrong.status).toBe(401);
      expect(wrong.body).toContain(SIGN_IN_TEXTS.wrong);
    }
    const blocked = await form(`${CONSOLE_TOKEN}x`);
    expect(blocked.status).toBe(429);
    expect(blocked.headers['retry-after']).toBe('1');
    expect(blocked.body).toContain(SIGN_IN_TEXTS.throttled(1));
    expect((await form(CONSOLE_TOKEN)).status).toBe(303);
    const bearer = await fetchRaw(`${mounted.base}/api/jobs/x/stop`, { method: 'POST', headers: { authorization: 'Bearer wrong-token-0123456789' } });
    expect(bearer.status).toBe(429);
    // A stale sign-in cookie is not a guess.
    expect((await fetchRaw(`${mounted.base}/api/jobs/x/stop`, { method: 'POST', headers: { cookie: 'shellring_signin=stale' } })).status).toBe(401);
  });
});

describe('serve', () => {
  it('counts wrong sign-ins and wrong bearer tokens together, and logs the block as a JSON line', async () => {
    const secret = join(work, 'secret');
    mkdirSync(secret, { mode: 0o700 });
    writeFileSync(join(secret, 'token'), `${TOKEN}\n`, { mode: 0o600 });
    const env = { ...process.env };
    delete env.SHELLRING_TOKEN;
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--cwd', work, '--token-file', join(secret, 'token')], { stdio: ['ignore', 'ignore', 'pipe'], env });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      const port = Number(await until(() => /listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr)?.[1], 20_000, 'the URL'));
      const signIn = { 'content-type': 'application/x-www-form-urlencoded' };
      for (let i = 0; i < 5; i += 1) expect((await post(port, '127.0.0.5', signIn, '/', 'token=wrong')).status).toBe(401);
      for (let i = 0; i < 5; i += 1) expect((await post(port, '127.0.0.5', { authorization: WRONG })).status).toBe(401);
      expect((await post(port, '127.0.0.5', signIn, '/', 'token=wrong')).status).toBe(429);
      expect((await post(port, '127.0.0.5', signIn, '/', `token=${TOKEN}`)).status).toBe(303);
      const line = await until(() => stderr.split('\n').find((text) => text.includes('"auth.backoff"')), 10_000, 'the log line');
      expect(JSON.parse(line)).toMatchObject({ level: 40, event: 'auth.backoff', source: '127.0.0.5', failures: 11, retryAfterSeconds: 1 });
    } finally {
      child.kill('SIGINT');
      await new Promise((resolve) => child.once('close', resolve));
      rmSync(secret, { recursive: true, force: true });
    }
  });
});
