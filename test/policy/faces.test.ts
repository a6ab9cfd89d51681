// The attack families through what users run: the library's bash tool, and `serve` over MCP HTTP (as root and, when
// the tests run as root, as nobody), under the deny-list and the allow-list policies. Every shape the checker
// refuses comes back as the policy's one line (a denial, or the person's rejection of an ask) and runs nothing: the
// victim file is still there after all of them; the harmless shapes beside them are not refused.
import { spawn } from 'node:child_process';
import { chownSync, mkdtempSync, realpathSync, rmSync, writeFileSync, existsSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { PolicyConfig } from '../../src/index.js';
import { bash, text } from '../helpers/calls.js';
import { runtimes } from '../helpers/runtimes.js';
import { call, cli, httpTransport, newClient, textOf } from '../faces/helpers.js';
import { ATTACKS, DENY_POLICY } from './attacks.js';
import { CASES, TABLE_POLICY } from './cases.js';
import { NOBODY } from './strace.js';
import { reachable } from '../sandbox/harness.js';
import { FACE_PEERS } from '../../src/faces/peers.js';

const open = runtimes();
const asRoot = process.getuid?.() === 0;
const REFUSED = /^\[policy: (denied|rejected by the user) — /;

/** Each policy with the shapes it must refuse and a few harmless ones it must let through. */
const POLICIES: { name: string; policy: PolicyConfig; refused: string[]; allowed: string[] }[] = [
  {
    name: 'deny-list',
    policy: DENY_POLICY,
    refused: ATTACKS.filter((entry) => entry.expected === 'refused').map((entry) => entry.command),
    allowed: ['git --version', 'timeout 5 true', 'echo x | xargs echo', "bash <<< 'echo hi'", "alias ll='ls -la'"],
  },
  {
    name: 'allow-list',
    policy: TABLE_POLICY,
    refused: CASES.filter((entry) => entry.decision !== 'allow').map((entry) => entry.command),
    allowed: ['ls', 'timeout 5 ls', "bash -c 'echo hi'", 'git status 2>/dev/null; true'],
  },
];

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A working directory holding the victim file, owned by `owner` when one is given. */
function workdir(owner?: { uid: number; gid: number }): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-policy-faces-')));
  dirs.push(dir);
  writeFileSync(join(dir, 'victim'), 'still here\n');
  if (owner) {
    chownSync(dir, owner.uid, owner.gid);
    chownSync(join(dir, 'victim'), owner.uid, owner.gid);
  }
  return dir;
}

/** Runs every shape through `run`, and returns the ones not refused and the harmless ones that were. */
async function judge(run: (command: string) => Promise<string>, refused: string[], allowed: string[]) {
  const passed: string[] = [];
  for (const command of refused) {
    const answer = await run(command);
    if (!REFUSED.test(answer)) passed.push(`${JSON.stringify(command)} => ${JSON.stringify(answer.slice(0, 200))}`);
  }
  const blocked: string[] = [];
  for (const command of allowed) {
    const answer = await run(command);
    if (answer.startsWith('[policy:')) blocked.push(`${JSON.stringify(command)} => ${answer}`);
  }
  return { passed, blocked };
}

/** A directory for a staged copy of the package, removed with the others. */
function stagedDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'shellring-policy-stage-'));
  dirs.push(dir);
  return dir;
}

/** `shellring serve` with `policy`, as `owner` when one is given; its URL and generated token, and how to stop it. */
async function serve(policy: PolicyConfig, cwd: string, owner?: { uid: number; gid: number }) {
  const file = join(cwd, '..', `${cwd.slice(cwd.lastIndexOf('/') + 1)}.policy.json`);
  writeFileSync(file, JSON.stringify(policy));
  chmodSync(file, 0o644);
  dirs.push(file);
  // Another user may not reach this checkout or Node (a clone in a 0700 directory): it runs a staged copy then.
  const reached = owner ? reachable(cli, stagedDir(), [...FACE_PEERS.mcp, ...FACE_PEERS.http, ...FACE_PEERS.console]) : { node: process.execPath, script: cli };
  const node = [reached.node, reached.script, 'serve', '--port', '0', '--cwd', cwd, '--policy', file];
  const argv = owner ? ['setpriv', `--reuid=${owner.uid}`, `--regid=${owner.gid}`, '--clear-groups', ...node] : node;
  const env = { ...process.env, HOME: cwd };
  delete env.SHELLRING_TOKEN;
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'], env });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const started = await new Promise<{ url: string; token: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 60_000);
    child.stderr.on('data', () => {
      const match = /listening on (\S+)\n[\s\S]*token \(generated for this run\): (\S+)\n/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1]!, token: match[2]! });
      }
    });
    child.on('exit', () => reject(new Error(`serve exited: ${stderr}`)));
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGINT');
    await new Promise((resolve) => child.once('close', resolve));
  };
  return { ...started, stop };
}

describe.each(POLICIES)('$name policy', ({ policy, refused, allowed }) => {
  it('the library refuses every refused shape and runs none of them', async () => {
    const cwd = workdir();
    const runtime = await open({ policy, approval: { request: async () => 'rejected' } });
    const session = runtime.session({ id: 'faces', cwd });
    const { passed, blocked } = await judge(async (command) => text(await bash(session, command)), refused, allowed);
    expect(passed).toEqual([]);
    expect(blocked).toEqual([]);
    expect(existsSync(join(cwd, 'victim'))).toBe(true);
  });

  const owners = asRoot ? ([['root', undefined], ['nobody', NOBODY]] as const) : ([['this user', undefined]] as const);
  it.each(owners)('serve, run as %s, refuses every refused shape over MCP HTTP and runs none of them', async (_who, owner) => {
    const cwd = workdir(owner);
    const server = await serve(policy, cwd, owner);
    const tc = newClient('policy-faces', { capabilities: { elicitation: { form: {} } } });
    tc.client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'decline' }));
    try {
      await tc.client.connect(httpTransport(server.url, server.token));
      const run = async (command: string) => textOf(await call(tc.client, 'bash', { command, description: 'a shape the policy judges' }));
      expect(await run('echo $UID')).toBe(`${owner?.uid ?? process.getuid?.()}\n`);
      const { passed, blocked } = await judge(run, refused, allowed);
      expect(passed).toEqual([]);
      expect(blocked).toEqual([]);
      expect(existsSync(join(cwd, 'victim'))).toBe(true);
    } finally {
      await tc.client.close();
      await server.stop();
    }
  });
});
