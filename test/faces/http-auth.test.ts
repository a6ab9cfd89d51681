// The HTTP face's door: bearer token (header only), Host and Origin checks, the console seam, and the
// CLI's token sources, driven over real HTTP and the SDK client.
import { spawn, spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp, type HttpServer } from '../../src/faces/mcp/index.js';
import { tokenMatches } from '../../src/faces/http/token.js';
import { call, cli, httpTransport, newClient, rawRequest, textOf, workdir, type RawAnswer } from './helpers.js';
import { until } from '../helpers/until.js';

const work = workdir('http-auth');
const TOKEN = 'correct-horse-battery-staple-0123';
let server: HttpServer;
const consoleSeen: string[] = [];

function raw(path: string, headers: Record<string, string>, { method = 'POST', body }: { method?: string; body?: string } = {}): Promise<RawAnswer> {
  return rawRequest(server.port, path, { method, headers, body });
}

const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

beforeAll(async () => {
  server = await serveHttp({
    port: 0,
    cwd: work,
    token: TOKEN,
    consoleHandler: (req, res) => {
      consoleSeen.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('console');
    },
  });
});

afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

describe('bearer token', () => {
  it('serves an SDK client that presents the token', async () => {
    const tc = newClient('with-token');
    await tc.client.connect(httpTransport(server.url, TOKEN));
    expect(textOf(await call(tc.client, 'bash', { command: 'echo hi', description: 'say hi once' }))).toBe('hi\n');
    await tc.client.close();
  });

  it('refuses a request without a token: 401 with a Bearer challenge, and no session is opened', async () => {
    const before = server.sessionIds().length;
    const answer = await raw('/mcp', json, { body: initialize });
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toBe('Bearer realm="shellring"');
    expect(JSON.parse(answer.body).error.message).toBe('Unauthorized: a bearer token is required (Authorization: Bearer <token>)');
    expect(server.sessionIds().length).toBe(before);
  });

  it.each([
    ['a wrong token', `Bearer ${TOKEN.slice(0, -1)}x`],
    ['an empty token', 'Bearer '],
    ['a prefix of the token', `Bearer ${TOKEN.slice(0, 8)}`],
    ['a huge token', `Bearer ${'a'.repeat(8000)}`],
  ])('refuses %s with invalid_token', async (_what, authorization) => {
    const answer = await raw('/mcp', { ...json, authorization }, { body: initialize });
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toBe('Bearer realm="shellring", error="invalid_token"');
    expect(JSON.parse(answer.body).error.message).toBe('Unauthorized: invalid token');
  });

  it('refuses another scheme, and survives a token larger than any header limit', async () => {
    const basic = await raw('/mcp', { ...json, authorization: `Basic ${Buffer.from(`u:${TOKEN}`).toString('base64')}` }, { body: initialize });
    expect(basic.status).toBe(401);
    expect(JSON.parse(basic.body).error.message).toBe('Unauthorized: the Authorization header must be "Bearer <token>"');
    const monster = await raw('/mcp', { ...json, authorization: `Bearer ${'b'.repeat(64 * 1024)}` }, { body: initialize }).catch(
      (error: Error) => ({ status: -1, body: error.message, headers: {} }),
    );
    expect([431, -1]).toContain(monster.status);
    // The server lives: the next request is served.
    const ok = await raw('/mcp', { ...json, authorization: `Bearer ${TOKEN}` }, { body: initialize });
    expect(ok.status).toBe(200);
    expect(ok.headers['mcp-session-id']).toBeTruthy();
  });

  it('takes the token from the Authorization header only: a cookie holding it opens neither /mcp nor the console', async () => {
    const answer = await raw('/mcp', { ...json, cookie: `other=1; shellring_token=${TOKEN}; shellring_signin=${TOKEN}` }, { body: initialize });
    expect(answer.status).toBe(401);
    const page = await raw('/tasks', { cookie: `shellring_signin=${TOKEN}` }, { method: 'GET' });
    expect(page.status).toBe(401);
    const byHeader = await raw('/tasks', { authorization: `Bearer ${TOKEN}` }, { method: 'GET' });
    expect(byHeader).toMatchObject({ status: 200, body: 'console' });
  });

  it('compares in constant time over equal-length digests, whatever the lengths', () => {
    expect(tokenMatches(TOKEN, TOKEN)).toBe(true);
    expect(tokenMatches(TOKEN, `${TOKEN}x`)).toBe(false);
    expect(tokenMatches(TOKEN, '')).toBe(false);
    expect(tokenMatches(TOKEN, undefined)).toBe(false);
  });
});

describe('Host and Origin', () => {
  const auth = { ...json, authorization: `Bearer ${TOKEN}` };

  it('refuses a foreign Origin with 403, even with the token', async () => {
    const answer = await raw('/mcp', { ...auth, origin: 'http://evil.example' }, { body: initialize });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).error.message).toBe('Forbidden Origin: http://evil.example');
    const nullOrigin = await raw('/mcp', { ...auth, origin: 'null' }, { body: initialize });
    expect(nullOrigin.status).toBe(403);
  });

  it('accepts the server’s own origin', async () => {
    const answer = await raw('/mcp', { ...auth, origin: `http://127.0.0.1:${server.port}` }, { body: initialize });
    expect(answer.status).toBe(200);
  });

  it('keeps the Host check ahead of the token', async () => {
    const answer = await raw('/mcp', { ...auth, host: `attacker.example:${server.port}` }, { body: initialize });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).error.message).toBe(`Invalid Host header: attacker.example:${server.port}`);
  });
});

describe('console seam', () => {
  it('hands a plain console nothing without the token, not even a sign-in address', async () => {
    consoleSeen.length = 0;
    for (const path of ['/', '/tasks', '/?token=whatever', `/?token=${TOKEN}`]) {
      expect((await raw(path, {}, { method: 'GET' })).status).toBe(401);
    }
    expect((await raw('/', { 'content-type': 'application/x-www-form-urlencoded' }, { body: `token=${TOKEN}` })).status).toBe(401);
    expect(consoleSeen).toEqual([]);
    const foreign = await raw('/?token=x', { origin: 'http://evil.example' }, { method: 'GET' });
    expect(foreign.status).toBe(403);
  });

  it('hands a console that judges access its requests unchecked, but never /mcp or /metrics', async () => {
    const seen: string[] = [];
    const judging = Object.assign(
      (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
        seen.push(`${req.method} ${req.url}`);
        res.writeHead(200, { 'content-type': 'text/plain' }).end('judged');
      },
      { judgesAccess: true as const },
    );
    const own = await serveHttp({ port: 0, cwd: work, token: TOKEN, consoleHandler: judging });
    try {
      const get = (path: string) =>
        new Promise<number>((resolve, reject) => {
          request({ host: '127.0.0.1', port: own.port, path }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
            .on('error', reject)
            .end();
        });
      expect(await get('/')).toBe(200);
      expect(await get('/api/stream')).toBe(200);
      expect(await get('/metrics')).toBe(401);
      expect(await get('/mcp')).toBe(401);
      expect(seen).toEqual(['GET /', 'GET /api/stream']);
    } finally {
      await own.close();
    }
  });

  it('answers 404 on other paths when no console is mounted', async () => {
    const bare = await serveHttp({ port: 0, cwd: work, token: TOKEN });
    try {
      const answer = await new Promise<number>((resolve, reject) => {
        request({ host: '127.0.0.1', port: bare.port, path: '/tasks', headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
          .on('error', reject)
          .end();
      });
      expect(answer).toBe(404);
    } finally {
      await bare.close();
    }
  });
});

describe('configuration of the token', () => {
  it('refuses a non-loopback address without an explicit token, and a short token', async () => {
    await expect(serveHttp({ host: '0.0.0.0', port: 0, cwd: work })).rejects.toThrow(
      'refusing to serve on 0.0.0.0 without an explicit token: anyone who can reach that address could run commands; give a token (--token-file FILE or SHELLRING_TOKEN)',
    );
    await expect(serveHttp({ port: 0, cwd: work, token: 'short' })).rejects.toThrow(
      'the token from the token option is too short (5 characters; at least 16)',
    );
  });

  function shellring(env: Record<string, string>, ...args: string[]) {
    const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 30_000 });
    return { status: result.status, stderr: result.stderr };
  }

  it('serve refuses --host 0.0.0.0 without a token, and unusable token files or variables', () => {
    const noToken = shellring({}, 'serve', '--host', '0.0.0.0', '--port', '0');
    expect(noToken.status).toBe(2);
    expect(noToken.stderr).toContain('shellring serve: refusing to serve on 0.0.0.0 without an explicit token');
    const empty = join(work, 'empty-token');
    writeFileSync(empty, '\n');
    expect(shellring({}, 'serve', '--token-file', empty)).toEqual({
      status: 2,
      stderr: `shellring serve: the token from --token-file '${empty}' is empty\nRun 'shellring serve --help' for usage.\n`,
    });
    const open = join(work, 'open-token');
    writeFileSync(open, `${TOKEN}\n`, { mode: 0o644 });
    chmodSync(open, 0o644);
    expect(shellring({}, 'serve', '--token-file', open)).toEqual({
      status: 2,
      stderr: `shellring serve: refusing --token-file '${open}': group or others can read or change it (mode 0644), and whoever reads the token can run commands as this server; run chmod 600 '${open}'\nRun 'shellring serve --help' for usage.\n`,
    });
    expect(shellring({}, 'serve', '--token-file', join(work, 'missing')).stderr).toContain(
      `shellring serve: cannot read --token-file '${join(work, 'missing')}': ENOENT`,
    );
    expect(shellring({ SHELLRING_TOKEN: 'has space in it, too long' }, 'serve').stderr).toContain(
      'shellring serve: the token from SHELLRING_TOKEN must be printable ASCII',
    );
  });

  for (const source of ['file', 'env'] as const) {
    it(`serve on 0.0.0.0 takes its token from ${source === 'file' ? '--token-file' : 'SHELLRING_TOKEN'} and prints no token`, async () => {
      const file = join(work, 'token');
      writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });
      const args = [cli, 'serve', '--host', '0.0.0.0', '--port', '0', '--cwd', work, ...(source === 'file' ? ['--token-file', file] : [])];
      const env = { ...process.env, SHELLRING_TOKEN: source === 'env' ? TOKEN : '' };
      if (source === 'file') delete env.SHELLRING_TOKEN;
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      try {
        const port = await until(() => /^shellring: MCP server listening on http:\/\/0\.0\.0\.0:(\d+)\/mcp\nshellring: web console at http:\/\/0\.0\.0\.0:\1\/ \(sign in with the token in its form\)\n/.exec(stderr)?.[1], 15_000, 'the URL');
        const tc = newClient('cli-token');
        await tc.client.connect(httpTransport(`http://127.0.0.1:${port}/mcp`, TOKEN));
        // The token never reaches a command's environment.
        expect(textOf(await call(tc.client, 'bash', { command: 'env | grep -c SHELLRING_TOKEN || true', description: 'look for the token' }))).toBe('0\n');
        await tc.client.close();
      } finally {
        child.kill('SIGTERM');
      }
      expect(await exited).toBe(0);
      expect(stderr).not.toContain(TOKEN);
    });
  }
});
