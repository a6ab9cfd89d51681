// A session's process limit on a remote host, against a real sshd logging in as an unprivileged user: a confined
// command's flood stops at the limit there (the runner's rlimit in the command's own user namespace, as locally
// without cgroups), a neighbour session keeps working, and nothing of the flood is left once its session closes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Runtime } from '../../../src/index.js';
import { runtimes } from '../../helpers/runtimes.js';
import { text, until } from '../../helpers/calls.js';
import { startSshd, type Sshd } from '../../../bench/lib/sshd.js';

/** The remote account: unprivileged (no rlimit binds root) with a shell sshd can run the runner through. */
const USER = 'shellring-remote';
const LIMIT = 40;
const isRoot = process.getuid?.() === 0;
const open = runtimes();
let sshd: Sshd;
let dir: string;
let runtime: Runtime;
const marker = `shellring-remote-flood-${process.pid}`;
// perl reports a refused fork at once; bash would retry it for half a minute.
const flood = `perl -e 'my $n = 0; for (1..300) { my $p = fork(); last unless defined $p; if (!$p) { sleep 60; exit } $n++ } print "$n\\n"' ${marker}; sleep 60`;

/** The flood's processes on the host (the sandbox's wrappers carry its text in their arguments but are not its). */
const alive = () =>
  execFileSync('ps', ['-eo', 'comm=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(marker) && !/^(bwrap|shellring-runne?r?|bash)\s/.test(line)).length;

function account(): number {
  try {
    execFileSync('id', ['-u', USER], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/bin/bash', USER]);
  }
  // No password, but not locked: sshd without PAM refuses a locked account ('!') even a key.
  execFileSync('usermod', ['-p', '*', USER]);
  return Number(execFileSync('id', ['-u', USER], { encoding: 'utf8' }).trim());
}

describe.skipIf(!isRoot)('a remote session’s process limit', () => {
  beforeAll(async () => {
    const uid = account();
    dir = mkdtempSync(join(tmpdir(), 'shellring-remote-limits-'));
    chmodSync(dir, 0o755);
    for (const name of ['flooder', 'neighbour', 'home']) {
      mkdirSync(join(dir, name));
      chownSync(join(dir, name), uid, uid);
    }
    sshd = await startSshd({ user: USER, home: join(dir, 'home') });
    runtime = await open({
      executor: { kind: 'ssh', hosts: [sshd.host], limits: { processes: LIMIT } },
      sandbox: { mode: 'workspace-write', backend: 'landlock' },
    });
  }, 60_000);

  afterAll(async () => {
    await runtime?.close();
    await sshd?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('stops a flood at the limit, leaves a neighbour working, and leaves nothing once its session closes', async () => {
    const flooder = runtime.session({ id: 'flooder', cwd: join(dir, 'flooder') });
    const neighbour = runtime.session({ id: 'neighbour', cwd: join(dir, 'neighbour') });
    expect(text(await neighbour.callTool('bash', { command: 'id -un', description: 'who runs remotely' }))).toBe(`${USER}\n`);
    const started = await flooder.callTool('bash', { command: flood, description: 'start a process flood', run_in_background: true });
    const jobId = (started.structuredContent as { jobId: string }).jobId;
    const output = await until(async () => {
      const read = text(await flooder.callTool('job_output', { job_id: jobId }));
      return /^\d+$/m.test(read) ? read : undefined;
    }, 60_000, 'the flood to report its forks');
    const forked = Number(/^(\d+)$/m.exec(output)![1]);
    expect(forked).toBeGreaterThan(5);
    expect(forked).toBeLessThan(LIMIT);
    expect(alive()).toBeLessThanOrEqual(LIMIT);
    const beside = await neighbour.callTool('bash', { command: 'for i in 1 2 3 4 5; do (true); done; echo neighbour-ok', description: 'work beside the flood' });
    expect(text(beside)).toBe('neighbour-ok\n');
    await flooder.close();
    await until(() => (alive() === 0 ? true : undefined), 10_000, 'the flood to end');
  }, 120_000);
});
