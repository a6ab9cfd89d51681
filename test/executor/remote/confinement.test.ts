// Remote commands confined as local ones, against a real sshd: the sandbox's plan travels with each request and the
// host's runner completes it with that host's paths (its homes, host keys, its session's temporary directory). The
// attacks run through the runtime with executor kind ssh: a write outside the workspace, a read of another
// session's workspace or temporary directory, of the remote user's ~/.ssh and of the host keys; an approved
// escalation runs unconfined once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Runtime } from '../../../src/index.js';
import { runtimes } from '../../helpers/runtimes.js';
import { text } from '../../helpers/calls.js';
import { startSshd, type Sshd } from '../../../bench/lib/sshd.js';

const open = runtimes();
let sshd: Sshd;
let dir: string;
/** The remote user's home on the host (sshd's HOME for its sessions): not the server's. */
let home: string;
const HOST_KEY = '/etc/ssh/ssh_host_ed25519_key';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'shellring-remote-confined-'));
  home = join(dir, 'remote-home');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'authorized_keys'), 'ssh-ed25519 AAAA-remote-user-key\n');
  for (const name of ['ws-a', 'ws-b']) mkdirSync(join(dir, name));
  writeFileSync(join(dir, 'ws-a', 'secret'), 'a-secret\n');
  sshd = await startSshd({ home });
}, 60_000);

afterAll(async () => {
  await sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

type Backend = 'landlock' | 'bubblewrap';

async function confined(backend: Backend, read: 'session' | 'host'): Promise<{ runtime: Runtime; approvals: string[] }> {
  const approvals: string[] = [];
  const runtime = await open({
    executor: { kind: 'ssh', hosts: [sshd.host] },
    sandbox: { mode: 'workspace-write', backend, read },
    approval: {
      request: async (request) => {
        approvals.push(request.kind === 'escalation' ? request.mode : request.kind);
        return 'allowed-once';
      },
    },
  });
  return { runtime, approvals };
}

const bash = async (runtime: Runtime, session: string, command: string, extra: Record<string, unknown> = {}) => {
  const result = await runtime.session({ id: session, cwd: join(dir, session) }).callTool('bash', { command, description: 'remote confinement', ...extra });
  return `${result.isError ? 'error: ' : ''}${text(result)}`;
};

const cases = (['landlock', 'bubblewrap'] as const).flatMap((backend) => (['session', 'host'] as const).map((read) => [backend, read] as const));

describe.each(cases)('a remote command confined by %s, read policy %s', (backend, read) => {
  let runtime: Runtime;
  let approvals: string[];
  const tag = `${backend}-${read}`;
  beforeAll(async () => {
    ({ runtime, approvals } = await confined(backend, read));
  }, 60_000);

  it('runs on the host with its plan in force, and writes inside its workspace', async () => {
    expect(await bash(runtime, 'ws-b', `echo in > ${join(dir, 'ws-b', `inside-${tag}`)} && cat inside-${tag}`)).toBe('in\n');
  }, 60_000);

  it('writes nothing outside its workspace', async () => {
    const outside = join(dir, `outside-${tag}`);
    const out = await bash(runtime, 'ws-b', `echo x > ${outside}; echo rc=$?`);
    expect(out).toMatch(/^rc=1\n\[stderr\]\nbash: line 1: .*: (Read-only file system|No such file or directory|Permission denied)\n$/);
    expect(existsSync(outside)).toBe(false);
  }, 60_000);

  it('reads neither the host keys nor the remote user’s ~/.ssh (the host’s paths, expanded there)', async () => {
    const keys = join(home, '.ssh', 'authorized_keys');
    const out = await bash(runtime, 'ws-b', `cat ${HOST_KEY} ${keys} 2>/dev/null; ls -A ${join(home, '.ssh')} 2>/dev/null; echo end`);
    expect(out).not.toContain('PRIVATE KEY');
    expect(out).not.toContain('remote-user-key');
    expect(out).not.toContain('authorized_keys');
    expect(out).toMatch(/end\n$/);
  }, 60_000);

  it('gets a private temporary directory on the host, and sees no other session’s', async () => {
    const tmpA = (await bash(runtime, 'ws-a', 'echo a-tmp-secret > "$TMPDIR/mine" && echo "$TMPDIR"')).trim();
    expect(tmpA).toMatch(/\/shellring-stdio-\d+\/session-\w+$/);
    const peek = await bash(runtime, 'ws-b', `cat ${tmpA}/mine 2>/dev/null; ls -A ${tmpA} 2>/dev/null; echo "$TMPDIR"`);
    expect(peek).not.toContain('a-tmp-secret');
    expect(peek).not.toContain('mine');
    // Its own is another directory, beside a's.
    expect(peek).toMatch(/^\/\S+\/shellring-stdio-\d+\/session-\w+\n$/);
    expect(peek).not.toBe(`${tmpA}\n`);
    // a reads its own.
    expect(await bash(runtime, 'ws-a', 'cat "$TMPDIR/mine"')).toBe('a-tmp-secret\n');
  }, 60_000);

  it('an approved escalation runs unconfined once, then the session is confined again', async () => {
    const outside = join(dir, `escalated-${tag}`);
    const keys = join(home, '.ssh', 'authorized_keys');
    const out = await bash(runtime, 'ws-b', `echo x > ${outside} && head -c 35 ${HOST_KEY} && cat ${keys}`, {
      sandbox_permissions: 'danger-full-access',
      justification: 'the test writes outside the workspace',
    });
    // The attacked files exist and are readable on the host: each refusal above was the sandbox's.
    expect(out).toBe('-----BEGIN OPENSSH PRIVATE KEY-----ssh-ed25519 AAAA-remote-user-key\n');
    expect(existsSync(outside)).toBe(true);
    expect(approvals).toEqual(['danger-full-access']);
    expect(await bash(runtime, 'ws-b', `echo y > ${outside}-again; echo rc=$?`)).toMatch(/^rc=1\n/);
    expect(existsSync(`${outside}-again`)).toBe(false);
  }, 60_000);
});

describe.each(['landlock', 'bubblewrap'] as const)('another session’s workspace, backend %s', (backend) => {
  it('is out of a remote command’s session view', async () => {
    const { runtime } = await confined(backend, 'session');
    const out = await bash(runtime, 'ws-b', `cat ${join(dir, 'ws-a', 'secret')} 2>&1; ls -A ${join(dir, 'ws-a')} 2>&1; echo end`);
    expect(out).not.toContain('a-secret');
    expect(out).not.toMatch(/^secret$/m);
    // From session a itself it reads.
    expect(await bash(runtime, 'ws-a', 'cat secret')).toBe('a-secret\n');
  }, 60_000);
});
