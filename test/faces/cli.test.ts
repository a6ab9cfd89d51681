// The `shellring` executable: exact output of run, exit statuses, help texts, usage errors, and serve's lifecycle.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { MCP_HELP, RUN_HELP, SERVE_HELP, TOP_HELP } from '../../src/cli/help.js';
import { processesWith } from '../helpers/processes.js';
import { cli, httpTransport, newClient, repo, seqText, spillPathOf, workdir } from './helpers.js';
import { until } from '../helpers/until.js';

const work = workdir('cli');
const version = (JSON.parse(readFileSync(`${repo}/package.json`, 'utf8')) as { version: string }).version;

afterAll(() => rmSync(work, { recursive: true, force: true }));

function shellring(...args: string[]) {
  const result = spawnSync(process.execPath, [cli, ...args], { cwd: work, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function usage(command: string | undefined, message: string) {
  const name = command ? `shellring ${command}` : 'shellring';
  return { status: 2, stdout: '', stderr: `${name}: ${message}\nRun '${name} --help' for usage.\n` };
}

describe('shellring run', () => {
  it.each([
    [['echo out; echo err >&2'], 'out\n[stderr]\nerr\n'],
    [['echo failing; exit 3'], 'failing\n[exit code: 3]'],
    [['printf hi'], 'hi'],
    [['true'], '(no output)'],
    [['echo', 'a', 'b'], 'a b\n'],
    [['kill -KILL $$'], '(no output)\n[killed by signal: SIGKILL]'],
  ])('prints exactly what a model sees for %j', (command, text) => {
    expect(shellring('run', '--', ...command)).toEqual({ status: 0, stdout: text, stderr: '' });
  });

  it('applies --timeout and --cwd', () => {
    expect(shellring('run', '--timeout', '200', '--', 'sleep 5')).toEqual({
      status: 0,
      stdout: '(no output)\n[timed out after 200ms]\n[killed by signal: SIGTERM]',
      stderr: '',
    });
    expect(shellring('run', '--cwd', '/', '--', 'pwd').stdout).toBe('/\n');
    expect(shellring('run', '--', 'pwd').stdout).toBe(`${work}\n`);
  });

  it('keeps the spill file it names after exiting', () => {
    const { status, stdout } = shellring('run', '--', 'seq 1 100000');
    expect(status).toBe(0);
    const spill = spillPathOf(stdout);
    expect(existsSync(spill)).toBe(true);
    expect(readFileSync(spill, 'utf8')).toBe(seqText(100000));
    rmSync(spill);
  });

  it('exits 1 with the Error text on stderr when the call is an error', () => {
    expect(shellring('run', '--', '   ')).toEqual({
      status: 1,
      stdout: '',
      stderr: 'Error: invalid command: expected a non-empty string\n',
    });
  });

  it('kills the command and exits 130 on SIGINT', async () => {
    const marker = `34.${process.pid}9`;
    // Written as arithmetic so that only the running command, not the CLI's own argv, carries the marker.
    const child = spawn(process.execPath, [cli, 'run', '--', `sleep 34.$((${process.pid}9))`], { cwd: work });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await until(() => processesWith(`sleep ${marker}`).length > 0, 15_000, 'the command to start');
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toBe('Error: tool call aborted\n');
    expect(processesWith(`sleep ${marker}`)).toEqual([]);
  });

  it('passes --sandbox to the runtime and rejects a mode it does not know', () => {
    const denied = shellring('run', '--sandbox', 'read-only', '--', 'echo x > sandboxed.txt');
    expect(denied.status).toBe(0);
    expect(existsSync(`${work}/sandboxed.txt`)).toBe(false);
    const bogus = shellring('run', '--sandbox', 'bogus', '--', 'true');
    expect(bogus.status).toBe(2);
    expect(bogus.stderr).toBe(
      `shellring run: invalid --sandbox: expected "read-only", "workspace-write" or "danger-full-access", got 'bogus'\nRun 'shellring run --help' for usage.\n`,
    );
  });

  it('keeps a read-only command from setting the setuid bit on a copy of bash outside its workspace', () => {
    const outside = workdir('cli-outside');
    try {
      copyFileSync('/bin/bash', `${outside}/bash`);
      chmodSync(`${outside}/bash`, 0o755);
      const run = shellring('run', '--sandbox', 'read-only', '--', `chmod u+s ${outside}/bash; touch -d 2001-01-01 ${outside}/bash`);
      // The default session read view does not even show a directory outside the workspace.
      expect(run.stdout).toContain(`chmod: cannot access '${outside}/bash': No such file or directory`);
      expect(statSync(`${outside}/bash`).mode & 0o7777).toBe(0o755);
      expect(statSync(`${outside}/bash`).mtime.getFullYear()).not.toBe(2001);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe('help and usage errors', () => {
  it('prints help on stdout with status 0', () => {
    expect(shellring('--help')).toEqual({ status: 0, stdout: TOP_HELP, stderr: '' });
    expect(shellring('-h')).toEqual({ status: 0, stdout: TOP_HELP, stderr: '' });
    expect(shellring('run', '--help')).toEqual({ status: 0, stdout: RUN_HELP, stderr: '' });
    expect(shellring('mcp', '--help')).toEqual({ status: 0, stdout: MCP_HELP, stderr: '' });
    expect(shellring('serve', '-h')).toEqual({ status: 0, stdout: SERVE_HELP, stderr: '' });
    expect(shellring('--version')).toEqual({ status: 0, stdout: `${version}\n`, stderr: '' });
  });

  it.each([
    [[], usage(undefined, 'missing command (run, mcp, serve or demo)')],
    [['frob'], usage(undefined, "unknown command 'frob'")],
    [['--frob'], usage(undefined, "unknown option '--frob'")],
    [['run'], usage('run', 'missing command: shellring run [options] -- <command>')],
    [['run', '--bogus', '--', 'true'], usage('run', "unknown option '--bogus'")],
    [['run', 'ls', '-la'], usage('run', "unknown option '-l'")],
    [['run', '--timeout'], usage('run', "option '--timeout' needs a value")],
    [['run', '--cwd', '--timeout', '5', '--', 'true'], usage('run', "option '--cwd' needs a value")],
    [['run', '--timeout', 'abc', '--', 'true'], usage('run', "invalid --timeout: expected milliseconds from 1 to 600000, got 'abc'")],
    [['run', '--timeout', '0', '--', 'true'], usage('run', "invalid --timeout: expected milliseconds from 1 to 600000, got '0'")],
    [['run', '--timeout', '1.5', '--', 'true'], usage('run', "invalid --timeout: expected milliseconds from 1 to 600000, got '1.5'")],
    [['run', '--timeout', '5', '--timeout', '6', '--', 'true'], usage('run', "option '--timeout' was given twice")],
    [['run', '--help=yes'], usage('run', "option '--help' takes no value")],
    [['run', '--cwd', '/no/such/dir', '--', 'true'], usage('run', "invalid --cwd: '/no/such/dir' is not a directory")],
    [['mcp', 'extra'], usage('mcp', "unexpected argument 'extra'")],
    [['mcp', '--port', '1'], usage('mcp', "unknown option '--port'")],
    [['serve', '--port', '70000'], usage('serve', "invalid --port: expected a port number from 0 to 65535, got '70000'")],
    [['serve', '--port', 'http'], usage('serve', "invalid --port: expected a port number from 0 to 65535, got 'http'")],
    [['serve', '--host'], usage('serve', "option '--host' needs a value")],
  ])('shellring %j is a usage error', (args, expected) => {
    expect(shellring(...args)).toEqual(expected);
  });

  it('refuses at start a sandboxed MCP server launched in /, naming --cwd', () => {
    // Some MCP clients start servers in /: every confined call would fail there, one by one.
    const inRoot = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { cwd: '/', input: '', encoding: 'utf8', timeout: 60_000 });
    for (const mode of ['read-only', 'workspace-write']) {
      const refused = inRoot('mcp', '--sandbox', mode);
      expect({ status: refused.status, stdout: refused.stdout, stderr: refused.stderr }).toEqual(
        usage(
          'mcp',
          `the working directory / cannot be a ${mode} sandbox's workspace (it would make the whole filesystem writable); pass --cwd <project directory> (some MCP clients start servers in /)`,
        ),
      );
    }
    expect(inRoot('mcp', '--sandbox', 'workspace-write', '--cwd', '/').status).toBe(2);
    // Given a project directory, or unconfined, it starts (and ends with its input).
    expect(inRoot('mcp', '--sandbox', 'workspace-write', '--cwd', work)).toMatchObject({ status: 0, stderr: '' });
    expect(inRoot('mcp')).toMatchObject({ status: 0, stderr: '' });
  });
});

describe('shellring serve', () => {
  it('prints its URL on stderr, serves MCP there, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--cwd', work], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const [url, token] = await until(
      () =>
        /^shellring: MCP server listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)\nshellring: token \(generated for this run\): ([\w-]{43})\nshellring: web console at http:\/\/127\.0\.0\.1:\d+\/\?token=\2\n/
          .exec(stderr)
          ?.slice(1),
      15_000,
      'the URL and token',
    );
    const tc = newClient('cli-serve');
    await tc.client.connect(httpTransport(url!, token!));
    const { tools } = await tc.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['bash', 'job_output', 'job_list', 'job_kill', 'job_input']);
    await tc.client.close();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toBe('');
  });

  it('refuses a port that is taken', async () => {
    const { serveHttp } = await import('../../src/faces/mcp/index.js');
    const taken = await serveHttp({ port: 0, cwd: work });
    try {
      const result = shellring('serve', '--port', String(taken.port));
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`^shellring serve: cannot listen on 127\\.0\\.0\\.1:${taken.port}: .*EADDRINUSE`));
    } finally {
      await taken.close();
    }
  });
});
