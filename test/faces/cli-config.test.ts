// Runtime options from the command line: flags on run, mcp and serve, a --config file validated by the library's
// schema, and the one precedence (flag, then environment, then file, then default).
import { spawn, spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, cli, httpTransport, newClient, textOf, workdir } from './helpers.js';
import { until } from '../helpers/until.js';

const work = workdir('cli-config');
const TOKEN = 'config-token-0123456789abcdef0';
const OTHER = 'another-token-0123456789abcdef';

afterAll(() => rmSync(work, { recursive: true, force: true }));

function config(name: string, value: unknown): string {
  const file = join(work, name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

function shellring(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [cli, ...args], { cwd: work, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('run with --config and flags', () => {
  it('takes the file’s settings, and a flag wins over the file', () => {
    const file = config('small-tail.json', { executor: { maxOutputBytes: 6 } });
    const cut = shellring(['run', '--config', file, '--', 'echo 1234567890']);
    expect(cut.status).toBe(0);
    expect(cut.stdout).toMatch(/^67890\n\[output truncated; full output: \/.+\]$/);
    const flagWins = shellring(['run', '--config', file, '--max-output-bytes', '1000', '--', 'echo 1234567890']);
    expect(flagWins.stdout).toBe('1234567890\n');
  });

  it('applies the environment policy flags', () => {
    expect(shellring(['run', '--env-inherit', 'none', '--', 'echo "${HOME-unset}"']).stdout).toBe('unset\n');
    expect(shellring(['run', '--env-exclude', 'CONFIG_PROBE_*', '--', 'echo "${CONFIG_PROBE_A-gone}"'], { CONFIG_PROBE_A: 'here' }).stdout).toBe('gone\n');
  });

  it('--allow-unix-sockets lets a command under --network deny reach a named unix socket, and only with it', async () => {
    const path = join(work, 'flag.sock');
    const server = createServer((socket) => socket.end('unix-ok\n'));
    await new Promise<void>((resolve) => server.listen(path, resolve));
    const client = `${process.execPath} -e "require('net').connect('${path}').on('data', (d) => process.stdout.write(d)).on('error', (e) => console.log(e.code))"`;
    const run = (extra: string[]) =>
      new Promise<string>((resolve) => {
        const child = spawn(process.execPath, [cli, 'run', '--sandbox', 'read-only', '--network', 'deny', ...extra, '--', client], { cwd: work });
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.once('exit', () => resolve(out));
      });
    try {
      expect(await run(['--allow-unix-sockets'])).toBe('unix-ok\n');
      expect(await run([])).toBe('EACCES\n');
    } finally {
      server.close();
    }
  });

  it('--network-allow, --network-deny and --network-presets lay a domain policy over the file\'s', async () => {
    const web = createHttpServer((req, res) => res.end(`hello ${req.url}\n`));
    const port = await new Promise<number>((resolve) => web.listen(0, '127.0.0.1', () => resolve((web.address() as { port: number }).port)));
    // The host map only a config file can give (it is for tests); the flags name the hosts.
    const file = config('domains.json', { sandbox: { network: { mode: 'domains', testHostMap: { 'web.test': '127.0.0.1', 'other.test': '127.0.0.1' } } } });
    const curl = (host: string) => `curl -sS http://${host}:${port}/x`;
    // Not spawnSync: the server answers from this process.
    const run = (flags: string[], command: string) =>
      new Promise<string>((resolve) => {
        const child = spawn(process.execPath, [cli, 'run', '--config', file, '--sandbox', 'workspace-write', ...flags, '--', command], { cwd: work });
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.once('close', () => resolve(out));
      });
    try {
      const blocked = (host: string, reason: string) => `[network: blocked ${host}:${port} — ${reason}]`;
      expect(await run(['--network-allow', `web.test:${port}`], curl('web.test'))).toBe('hello /x\n');
      const endsWith = (text: string, line: string) => expect(text.endsWith(line), text).toBe(true);
      endsWith(await run(['--network-allow', `web.test:${port}`], curl('other.test')), blocked('other.test', 'not in the allowed hosts'));
      const wide = ['--network-allow', '*.test', '--network-deny', 'web.test'];
      endsWith(await run(wide, curl('web.test')), blocked('web.test', 'denied by the network policy'));
      expect(await run(wide, curl('other.test'))).toBe('hello /x\n');
      // Without a person to ask, --network-ask refuses and says so.
      endsWith(await run(['--network-ask'], curl('other.test')), blocked('other.test', 'not in the allowed hosts, and nobody could be asked to allow it'));
    } finally {
      web.close();
    }
  });

  it.each([
    [['run', '--allow-unix-sockets=yes', '--', 'true'], /^shellring run: option '--allow-unix-sockets' takes no value/],
    [['run', '--config', 'missing.json', '--', 'true'], /^shellring run: cannot read --config 'missing\.json': ENOENT/],
    [['run', '--config', 'BROKEN', '--', 'true'], /^shellring run: cannot read --config '.+broken\.json': .*JSON/],
    [['run', '--config', 'UNKNOWN', '--', 'true'], /^shellring run: invalid --config '.+unknown\.json': executor: Unrecognized key: "bogus"\n/],
    [['run', '--config', 'NEGATIVE', '--', 'true'], /^shellring run: invalid --config '.+negative\.json': executor\.maxOutputBytes: Too small/],
    [['serve', '--config', 'BADSERVE'], /^shellring serve: invalid --config '.+badserve\.json': serve\.port: Invalid input: expected number/],
    [['run', '--sandbox-backend', 'bogus', '--', 'true'], /^shellring run: invalid --sandbox-backend: expected "landlock" or "bubblewrap", got 'bogus'\nRun 'shellring run --help' for usage\.\n$/],
    [['run', '--network', 'sometimes', '--', 'true'], /^shellring run: invalid --network: expected "allow", "deny" or "domains", got 'sometimes'\nRun 'shellring run --help' for usage\.\n$/],
    [['run', '--network', 'allow', '--network-ask', '--', 'true'], /^shellring run: --network-ask needs --network domains, not --network allow\nRun 'shellring run --help' for usage\.\n$/],
    [['run', '--network-presets', 'npm,cpan', '--', 'true'], /^shellring run: invalid --network-presets: expected "npm", "pypi", "crates", "github" or "debian", got 'cpan'\n/],
    [['run', '--network-allow', 'bad host', '--', 'true'], /^shellring: invalid runtime options: sandbox\.network\.allow\.0: network entry "bad host": expected host/],
    [['mcp', '--env-inherit', 'most'], /^shellring mcp: invalid --env-inherit: expected "all", "core" or "none", got 'most'\nRun 'shellring mcp --help' for usage\.\n$/],
    [['serve', '--max-output-bytes', 'lots'], /^shellring serve: invalid --max-output-bytes: expected bytes from 0 to/],
  ])('refuses bad configuration %j with a clear message and status 2', (args, message) => {
    const files: Record<string, string> = {
      BROKEN: config('broken.json', '{"executor": '),
      UNKNOWN: config('unknown.json', { executor: { bogus: 1 } }),
      NEGATIVE: config('negative.json', { executor: { maxOutputBytes: -1 } }),
      BADSERVE: config('badserve.json', { serve: { port: 'x' } }),
    };
    const result = shellring(args.map((arg) => files[arg] ?? arg));
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

describe('serve with --config', () => {
  it('reads its serve section and runtime options; SHELLRING_TOKEN wins over the file’s tokenFile', async () => {
    const tokenFile = config('token', `${OTHER}\n`);
    const file = config('serve.json', {
      executor: { maxOutputBytes: 5 },
      serve: { tokenFile, maxSessions: 1, cwd: work },
    });
    const child = spawn(process.execPath, [cli, 'serve', '--config', file, '--port', '0'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, SHELLRING_TOKEN: TOKEN },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const url = await until(() => /listening on (\S+)\n/.exec(stderr)?.[1], 20_000, 'the URL');
      const wrong = newClient('file-token');
      await expect(wrong.client.connect(httpTransport(url, OTHER))).rejects.toThrow(/401|Unauthorized/);
      const tc = newClient('env-token');
      await tc.client.connect(httpTransport(url, TOKEN));
      expect(textOf(await call(tc.client, 'bash', { command: 'echo 1234567890', description: 'print a long line' }))).toMatch(
        /^7890\n\[output truncated; full output: \/.+\]$/,
      );
      const second = newClient('over-the-limit');
      await expect(second.client.connect(httpTransport(url, TOKEN))).rejects.toThrow(/session limit \(1\)/);
      await tc.client.close();
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
