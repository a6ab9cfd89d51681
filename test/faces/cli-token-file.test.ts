// `serve` refuses a token file that group or others can read or change (whoever reads it can run commands as the
// server), naming the mode and the chmod; one with another hard link (a name in the workspace, say); one whose
// directory the session view shows on its own (the workspace, readAllow). A private file is taken, and in the
// README's place (/etc/<dir>/token) a confined command, on either backend, cannot read it.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, httpTransport, newClient, textOf } from './helpers.js';

const cli = join(import.meta.dirname, '../../dist/src/cli/main.js');
const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-token-file-')));
const TOKEN = 'a-private-token-of-32-characters';

describe('serve --token-file', () => {
  it.each(['0644', '0640', '0604', '0620'])('refuses mode %s', (octal) => {
    const mode = parseInt(octal, 8);
    const file = join(work, `token-${mode.toString(8)}`);
    writeFileSync(file, `${TOKEN}\n`);
    // Set after writing: the umask would clear some of these bits at creation.
    chmodSync(file, mode);
    const result = spawnSync(process.execPath, [cli, 'serve', '--port', '0', '--cwd', work, '--token-file', file], { encoding: 'utf8', timeout: 30_000 });
    expect({ status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
      status: 2,
      stdout: '',
      stderr: `shellring serve: refusing --token-file '${file}': group or others can read or change it (mode 0${mode.toString(8)}), and whoever reads the token can run commands as this server; run chmod 600 '${file}'\nRun 'shellring serve --help' for usage.\n`,
    });
  });

  it('serves with a file only its owner can read', async () => {
    const file = join(work, 'token-600');
    writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });
    const { stderr, stop } = await serve(['--cwd', work, '--token-file', file]);
    try {
      expect(stderr).not.toContain('refusing');
    } finally {
      await stop();
    }
  });

  it('refuses a token file hard-linked into the workspace, naming the links', () => {
    const secret = privateDir('linked');
    const file = join(secret, 'token');
    writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });
    const ws = privateDir('linked-ws');
    linkSync(file, join(ws, 'innocent.txt'));
    const result = refused(['--sandbox', 'read-only', '--cwd', ws, '--token-file', file]);
    expect(result).toEqual({
      status: 2,
      stderr: `shellring serve: refusing --token-file '${file}': it has 2 hard links, and a command could read the token through a name outside the directory hidden from it (one in a workspace, say); copy the token to a new file and remove every other name\nRun 'shellring serve --help' for usage.\n`,
    });
  });

  it('refuses a token file whose directory holds, or lies in, the workspace or a readAllow path', () => {
    const parent = privateDir('overlap');
    const file = join(parent, 'token');
    writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });
    const why = (what: string, path: string) =>
      `shellring serve: confined commands could read the token file '${file}': its directory cannot be hidden from them (${parent} overlaps ${what} ${path}); keep the token in a directory of its own, e.g. /etc/shellring/token\nRun 'shellring serve --help' for usage.\n`;
    const inner = join(parent, 'project');
    mkdirSync(inner);
    expect(refused(['--sandbox', 'read-only', '--cwd', inner, '--token-file', file])).toEqual({ status: 2, stderr: why('the workspace', inner) });
    const config = join(privateDir('overlap-config'), 'shellring.json');
    writeFileSync(config, JSON.stringify({ sandbox: { readAllow: [parent] } }));
    const ws = privateDir('overlap-ws');
    expect(refused(['--sandbox', 'read-only', '--config', config, '--cwd', ws, '--token-file', file])).toEqual({
      status: 2,
      stderr: why('the readAllow path', parent),
    });
  });
});

describe("the token file in the README's place", () => {
  // The README suggests /etc/shellring/token: a directory of its own under /etc, which the view otherwise shows.
  let etcDir = '';
  let file = '';
  beforeAll(() => {
    etcDir = mkdtempSync('/etc/shellring-test-');
    file = join(etcDir, 'token');
    writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });
  });
  afterAll(() => rmSync(etcDir, { recursive: true, force: true }));

  it.each(['landlock', 'bubblewrap'])('is out of a confined command\'s reach (%s)', async (backend) => {
    const ws = privateDir(`etc-${backend}`);
    const { url, stop } = await serve(['--sandbox', 'read-only', '--sandbox-backend', backend, '--cwd', ws, '--token-file', file]);
    const { client } = newClient('token-reader');
    try {
      await client.connect(httpTransport(url, TOKEN));
      const out = textOf(await call(client, 'bash', { command: `cat ${file}; ls -A ${etcDir}; echo done`, description: 'read the server token file' }));
      expect(out).not.toContain(TOKEN);
      expect(out).toMatch(/^done\n\[stderr\]\ncat: .*: No such file or directory\n/);
      // The rest of /etc stays in view.
      expect(textOf(await call(client, 'bash', { command: 'head -c 5 /etc/passwd', description: 'read a system file' }))).toBe('root:');
    } finally {
      await client.close();
      await stop();
    }
  });
});

function privateDir(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), `shellring-token-${prefix}-`)));
}

function refused(args: string[]): { status: number | null; stderr: string } {
  const result = spawnSync(process.execPath, [cli, 'serve', '--port', '0', ...args], { encoding: 'utf8', timeout: 30_000 });
  return { status: result.status, stderr: result.stderr };
}

/** A `serve` that has started, with its URL and what it printed; `stop` ends it. */
async function serve(args: string[]): Promise<{ url: string; stderr: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: withoutToken() });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGINT');
      await new Promise((resolve) => child.once('close', resolve));
    }
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 30_000);
      child.stderr.on('data', () => {
        const match = /listening on (\S+)\n[\s\S]*web console at/.exec(stderr);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      child.on('exit', () => reject(new Error(`serve exited: ${stderr}`)));
    });
    return { url, stderr, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function withoutToken(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.SHELLRING_TOKEN;
  return env;
}
