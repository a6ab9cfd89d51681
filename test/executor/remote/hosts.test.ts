// The SSH executor under volume and under loss, against two real sshd: a gigabyte arrives whole in bounded memory,
// 20 sessions x 4 commands arrive byte-exact, a cut connection ends the remote commands and fails only its
// host's calls with the host's line, the next call reconnects, job_kill and session close end a setsid double fork
// there, and a host whose key differs from known_hosts is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Runtime } from '../../../src/index.js';
import { remoteErrors } from '../../../src/contract/index.js';
import type { RemoteExecutor } from '../../../src/executor/remote/executor.js';
import { hostLabel } from '../../../src/executor/remote/config.js';
import { runtimes } from '../../helpers/runtimes.js';
import { background, text, until } from '../../helpers/calls.js';
import { startSshd, sshdSessionPids, type Sshd } from '../../../bench/lib/sshd.js';

const open = runtimes();
let first: Sshd;
let second: Sshd;
let runtime: Runtime;
let dir: string;

beforeAll(async () => {
  [first, second] = await Promise.all([startSshd(), startSshd()]);
  dir = mkdtempSync(join(tmpdir(), 'shellring-remote-'));
  runtime = await open({ executor: { cwd: dir, kind: 'ssh', hosts: [first.host, second.host] } });
}, 60_000);

afterAll(async () => {
  await runtime?.close();
  await Promise.all([first?.stop(), second?.stop()]);
});

const call = async (session: string, command: string, extra: Record<string, unknown> = {}) => {
  const result = await runtime.session({ id: session }).callTool('bash', { command, description: 'remote test', ...extra });
  return `${result.isError ? 'error: ' : ''}${text(result)}`;
};

const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\S+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
};

/** Waits for a pid the command wrote to `file`. */
const pidIn = (file: string) => until(() => { try { return Number(readFileSync(file, 'utf8').trim()) || undefined; } catch { return undefined; } }, 20_000, `a pid in ${file}`);

const executor = () => runtime.executor as RemoteExecutor;

/** Places `session` (one call), and returns the sshd it landed on. */
async function placed(session: string): Promise<Sshd> {
  expect(await call(session, 'echo placed')).toBe('placed\n');
  const connection = await executor().remote.connectionOf(session);
  return connection!.host.port === first.port ? first : second;
}

describe('volume', () => {
  it('a gigabyte of output arrives whole: the spill file has the bytes the command printed, and memory stays bounded', async () => {
    const size = 1 << 30;
    const command = `yes 0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ | head -c ${size}`;
    const before = process.memoryUsage.rss();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
    const out = await call('gigabyte', command, { timeoutMs: 300_000 }).finally(() => clearInterval(sampler));
    // The relay holds one frame per channel and the capture a tail: a gigabyte passes through, none of it stays.
    expect(peak - before).toBeLessThan(128 << 20);
    const spill = /full output: (\S+?)\]/.exec(out)?.[1];
    expect(spill, out.slice(-300)).toBeDefined();
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(spill!)) hash.update(chunk as Buffer);
    const expected = execFileSync('bash', ['-c', `${command} | sha256sum`]).toString().split(' ')[0];
    expect(hash.digest('hex')).toBe(expected);
  }, 300_000);

  it('20 sessions x 4 concurrent commands arrive byte-exact', async () => {
    const calls = [];
    for (let s = 0; s < 20; s++) {
      for (let c = 0; c < 4; c++) {
        const expected = Array.from({ length: 3000 }, (_, i) => `s${s}c${c} ${i + 1}\n`).join('');
        calls.push(call(`many-${s}`, `for i in $(seq 1 3000); do echo "s${s}c${c} $i"; done`).then((out) => expect(out).toBe(expected)));
      }
    }
    await Promise.all(calls);
  }, 120_000);
});

describe('a lost connection', () => {
  it('killing the ssh client ends the remote commands, fails only that host\'s calls, and the next call reconnects', async () => {
    const host = await placed('cut-client');
    const other = await placed('cut-bystander');
    expect(other).not.toBe(host);
    const file = join(dir, 'cut-client.pid');
    const running = call('cut-client', `setsid bash -c 'echo $$ > ${file}; exec sleep 600' & sleep 600`);
    // The bystander runs until the test lets it finish, after the cut: it lives through it by construction.
    const gate = join(dir, 'cut-bystander.go');
    const bystander = call('cut-bystander', `until [ -e ${gate} ]; do sleep 0.05; done; echo still here`);
    const pid = await pidIn(file);
    const master = (await executor().remote.connectionOf('cut-client'))!.masterPid!;
    process.kill(master, 'SIGKILL');
    const label = hostLabel(executor().config.hosts!.find((h) => h.port === host.port)!);
    expect(await running).toMatch(new RegExp(`^error: Error: ${escapeRegExp(remoteErrors.hostLost(label))}(: .*)?$`));
    await until(() => !alive(pid), 20_000, 'the remote command to end');
    writeFileSync(gate, '');
    expect(await bystander).toBe('still here\n');
    expect(await call('cut-client', 'echo again')).toBe('again\n');
  }, 60_000);

  it('killing sshd\'s session process does the same', async () => {
    const host = await placed('cut-server');
    const file = join(dir, 'cut-server.pid');
    const running = call('cut-server', `echo $$ > ${file}; exec sleep 600`);
    const pid = await pidIn(file);
    const sessions = sshdSessionPids(host).filter((p) => readFileSync(`/proc/${p}/comm`, 'utf8').startsWith('sshd'));
    expect(sessions.length).toBeGreaterThan(0);
    for (const p of sessions) process.kill(p, 'SIGKILL');
    const label = hostLabel(executor().config.hosts!.find((h) => h.port === host.port)!);
    expect(await running).toMatch(new RegExp(`^error: Error: ${escapeRegExp(remoteErrors.hostLost(label))}(: .*)?$`));
    await until(() => !alive(pid), 20_000, 'the remote command to end');
    expect(await call('cut-server', 'echo again')).toBe('again\n');
  }, 60_000);
});

describe('ending a remote double fork', () => {
  const doubleFork = (file: string) => `( setsid bash -c 'echo $$ > ${file}; exec sleep 600' & ) ; sleep 600`;

  it('job_kill ends it', async () => {
    const file = join(dir, 'job-kill.pid');
    const session = runtime.session({ id: 'job-kill' });
    const id = await background(session, doubleFork(file));
    const pid = await pidIn(file);
    await session.callTool('job_kill', { job_id: id });
    await until(() => !alive(pid), 10_000, 'the setsid process to end');
  }, 60_000);

  it('session close ends it', async () => {
    const file = join(dir, 'session-close.pid');
    const session = runtime.session({ id: 'session-close' });
    await background(session, doubleFork(file));
    const pid = await pidIn(file);
    await session.close();
    expect(alive(pid)).toBe(false);
  }, 60_000);
});

describe('host keys', () => {
  it('a host whose key differs from known_hosts is refused', async () => {
    const refused = await open({ executor: { cwd: dir, kind: 'ssh', hosts: [{ ...first.host, knownHostsFile: first.wrongKnownHosts }] } });
    const result = await refused.session({ id: 'mismatch' }).callTool('bash', { command: 'echo never', description: 'remote test' });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('Error: ' + remoteErrors.unreachable(`root@127.0.0.1:${first.port}`, 'Host key verification failed.'));
  }, 60_000);
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
