// One sandbox per session, per backend and confining mode: its calls share one mount and pid namespace, other
// sessions and escalated calls get their own, a sandbox whose fork server is SIGKILLed is rebuilt at the next call
// at no other session's cost, and none of its processes outlives its session.
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Runtime, Session } from '../../src/index.js';
import { bash, text, until } from '../helpers/calls.js';
import { alive } from '../helpers/processes.js';
import { runtimes } from '../helpers/runtimes.js';
import { runScenarios, unprivilegedUid, users } from './harness.js';

const open = runtimes();
const base = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-session-sandbox-')));
const NAMESPACES = 'readlink /proc/self/ns/mnt /proc/self/ns/pid | tr "\\n" " "';

/** The pids below `pid` (depth first), with `pid` itself first. */
function tree(pid: number): number[] {
  const out = [pid];
  try {
    for (const task of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean)) out.push(...tree(Number(task)));
  } catch {
    // Ended while we looked.
  }
  return out;
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** The fork server of a sandbox: the deepest process below its outermost one that runs `--serve` (or, inside
 * bubblewrap, `--serve-inside <fd>`). */
function forkServer(outer: number): number {
  const servers = tree(outer).filter((pid) => /--serve(-inside\0\d+)?\0$/.test(cmdline(pid)));
  expect(servers.length).toBeGreaterThan(0);
  return servers.at(-1)!;
}

/** Each process below `pid` with its state and command line: what a sandbox that outlived its wait still runs. */
function describeTree(pid: number): string {
  return tree(pid)
    .map((p) => {
      let state = '?';
      try {
        const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
        state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      } catch {
        state = 'gone';
      }
      return `${p} ${state} ${cmdline(p).replaceAll('\0', ' ').slice(0, 120)}`;
    })
    .join('\n');
}

/** Waits until the sandbox `pid` is gone; should it not go, the failure shows what it still runs. */
async function gone(pid: number, timeoutMs: number, what: string): Promise<void> {
  try {
    await until(() => !alive(pid), timeoutMs, what);
  } catch (error) {
    throw new Error(`${(error as Error).message}; still there:\n${describeTree(pid)}`);
  }
}

function sandboxPid(runtime: Runtime, session: Session): number {
  const pid = runtime.executor.sandboxes.pidOf(session.id);
  expect(pid).toBeDefined();
  return pid!;
}

async function namespaces(session: Session): Promise<string> {
  const result = await bash(session, NAMESPACES);
  expect(result.isError ?? false, text(result)).toBe(false);
  return text(result);
}

/** A workspace whose package depends on a tarball inside it, locked: `npm ci` needs no network. */
function npmWorkspace(dir: string): void {
  const dep = join(dir, 'dep-src');
  mkdirSync(join(dir, 'vendor'), { recursive: true });
  mkdirSync(dep);
  writeFileSync(join(dep, 'package.json'), JSON.stringify({ name: 'shellring-dep', version: '1.0.0', main: 'index.js' }));
  writeFileSync(join(dep, 'index.js'), "module.exports = 'dep works';\n");
  execFileSync('npm', ['pack', '--silent', '--pack-destination', join(dir, 'vendor')], { cwd: dep, stdio: 'ignore' });
  const dependencies = { 'shellring-dep': 'file:vendor/shellring-dep-1.0.0.tgz' };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', dependencies }));
  execFileSync('npm', ['install', '--package-lock-only', '--offline', '--silent'], { cwd: dir, stdio: 'ignore' });
}

describe.each(['landlock', 'bubblewrap'] as const)('session sandboxes (%s)', (backend) => {
  it('npm ci of a locked local package works in the session view (workspace-write)', async () => {
    const runtime = await open({ sandbox: { mode: 'workspace-write', backend } });
    const dir = join(base, `${backend}-npm`);
    mkdirSync(dir);
    npmWorkspace(dir);
    const session = runtime.session({ id: 'npm', cwd: dir });
    const result = await bash(session, 'npm ci --offline --no-audit --no-fund --no-update-notifier --silent && node -e "console.log(require(\'shellring-dep\'))"', {
      timeoutMs: 120_000,
    });
    expect(text(result)).toBe('dep works\n');
    expect(readFileSync(join(dir, 'node_modules/shellring-dep/index.js'), 'utf8')).toContain('dep works');
  }, 150_000);

  describe.each(['read-only', 'workspace-write'] as const)('in %s', (mode) => {
    const workspace = (name: string) => {
      const dir = join(base, `${backend}-${mode}-${name}`);
      mkdirSync(dir, { recursive: true });
      return dir;
    };

    it('one per session: reused by its calls, apart from other sessions, the host and escalated calls', async () => {
      const runtime = await open({ sandbox: { mode, backend }, approval: { policy: 'ask', request: async () => 'allowed-once' } });
      const a = runtime.session({ id: 'a', cwd: workspace('a') });
      const b = runtime.session({ id: 'b', cwd: workspace('b') });
      const host = `${readlinkSync('/proc/self/ns/mnt')} ${readlinkSync('/proc/self/ns/pid')} `;
      const ofA = await Promise.all(Array.from({ length: 4 }, () => namespaces(a)));
      ofA.push(await namespaces(a));
      const ofB = [await namespaces(b), await namespaces(b)];
      expect(new Set(ofA).size, ofA.join('\n')).toBe(1);
      expect(new Set(ofB).size, ofB.join('\n')).toBe(1);
      expect(ofA[0]).not.toBe(ofB[0]);
      // Each of the two namespaces differs, not only the pair.
      const [mntA, pidA] = ofA[0]!.split(' ');
      const [mntB, pidB] = ofB[0]!.split(' ');
      expect(mntA).not.toBe(mntB);
      expect(pidA).not.toBe(pidB);
      expect(ofA[0]).not.toBe(host);
      const outer = sandboxPid(runtime, a);

      // An escalated call runs in a sandbox of its own (or none, with full access), and the session's stays.
      const wider = mode === 'read-only' ? 'workspace-write' : 'danger-full-access';
      const escalated = await bash(a, NAMESPACES, { sandbox_permissions: wider, justification: 'needs more' });
      expect(escalated.isError ?? false, text(escalated)).toBe(false);
      expect(text(escalated)).not.toBe(ofA[0]);
      expect(await namespaces(a)).toBe(ofA[0]);
      expect(sandboxPid(runtime, a)).toBe(outer);
    });

    it('its commands hold no capability and can gain none, call after call', async () => {
      const runtime = await open({ sandbox: { mode, backend } });
      const session = runtime.session({ id: 'caps', cwd: workspace('caps') });
      const held = ['CapInh', 'CapPrm', 'CapEff', 'CapAmb', ...(backend === 'landlock' ? ['CapBnd'] : [])];
      for (let call = 0; call < 3; call++) {
        const status = text(await bash(session, 'grep -E "^(Cap|NoNewPrivs)" /proc/self/status'));
        for (const set of held) expect(status, status).toMatch(new RegExp(`^${set}:\\s+0{16}$`, 'm'));
        expect(status).toMatch(/^NoNewPrivs:\s+1$/m);
      }
    });

    it("rebuilt when the session's mode changes, with the new mode's rights; a running job keeps the old one", async () => {
      const runtime = await open({ sandbox: { mode, backend } });
      const dir = workspace('mode');
      const session = runtime.session({ id: 'mode', cwd: dir });
      await namespaces(session);
      const first = sandboxPid(runtime, session);
      const idle = tree(first).length;
      const job = await bash(session, 'sleep 5; echo job done', { run_in_background: true });
      expect(job.isError ?? false, text(job)).toBe(false);
      await until(() => tree(first).length > idle, 10_000, 'the job running in the sandbox');
      const other = mode === 'read-only' ? 'workspace-write' : 'read-only';
      session.setSandboxMode(other);
      const write = await bash(session, 'echo x > written && echo wrote');
      expect(text(write).startsWith('wrote\n')).toBe(other === 'workspace-write');
      const second = sandboxPid(runtime, session);
      expect(second).not.toBe(first);
      // The old sandbox serves its running job to its end, then goes.
      expect(alive(first)).toBe(true);
      await gone(first, 20_000, 'the superseded sandbox gone once its job ended');
      session.setSandboxMode(mode);
      await namespaces(session);
      expect(sandboxPid(runtime, session)).not.toBe(second);
      await gone(second, 10_000, 'the second sandbox gone once superseded');
    });

    it('rebuilt after its fork server is SIGKILLed, at no cost to another session; gone after close', async () => {
      const runtime = await open({ sandbox: { mode, backend } });
      const a = runtime.session({ id: 'killed', cwd: workspace('killed') });
      const b = runtime.session({ id: 'bystander', cwd: workspace('bystander') });
      await namespaces(a);
      const ofB = await namespaces(b);
      const outerB = sandboxPid(runtime, b);
      // A long command of the bystander runs across the other's loss.
      const long = bash(b, 'sleep 2; echo still here');
      const outer = sandboxPid(runtime, a);
      const server = forkServer(outer);
      const processes = tree(outer);
      process.kill(server, 'SIGKILL');
      await until(() => processes.every((pid) => !alive(pid)), 10_000, "the killed sandbox's processes gone");
      // A namespace's number may be taken again once it is freed: the new sandbox is told by its processes.
      const after = await namespaces(a);
      expect(await namespaces(a)).toBe(after);
      expect(sandboxPid(runtime, a)).not.toBe(outer);
      expect(processes).not.toContain(forkServer(sandboxPid(runtime, a)));
      expect(text(await long)).toBe('still here\n');
      expect(await namespaces(b)).toBe(ofB);
      expect(sandboxPid(runtime, b)).toBe(outerB);

      const rebuilt = tree(sandboxPid(runtime, a));
      const job = await bash(a, 'sleep 600', { run_in_background: true });
      expect(job.isError ?? false, text(job)).toBe(false);
      await until(() => tree(sandboxPid(runtime, a)).length > rebuilt.length, 10_000, 'the background job running in the sandbox');
      const running = tree(sandboxPid(runtime, a));
      await a.close();
      await until(() => running.every((pid) => !alive(pid)), 10_000, "the closed session's processes gone");
      expect(runtime.executor.sandboxes.pidOf('killed')).toBeUndefined();
      expect(alive(outerB)).toBe(true);
      await runtime.close();
      await until(() => !alive(outerB), 10_000, 'every sandbox gone with the runtime');
    });
  });
});

describe.each(['landlock', 'bubblewrap'] as const)('session sandboxes as each user (%s)', (backend) => {
  describe.each(users)('as %s', (user) => {
    const facts = runScenarios(join(import.meta.dirname, 'session-sandbox.mjs'), backend, user);

    it.each(['read-only', 'workspace-write'])('in %s: one per session, rebuilt after a SIGKILL, gone after close', (mode) => {
      const { ofA, ofB, killedGone, rebuilt, rebuiltApart, closedGone, outerFound } = facts[mode];
      const uid = user === 'root' ? '0' : String(unprivilegedUid());
      expect(outerFound).toBe(true);
      expect(new Set(ofA).size).toBe(1);
      expect(ofA[0]).toMatch(new RegExp(`^mnt:\\[\\d+\\] pid:\\[\\d+\\] ${uid}\\n$`));
      expect(ofB[0]).not.toBe(ofA[0]);
      expect(killedGone).toBe(true);
      expect(rebuiltApart).toBe(true);
      expect(rebuilt[0]).toBe(rebuilt[1]);
      expect(closedGone).toBe(true);
      // The other session's sandbox lived through both.
      expect(ofB[1]).toBe(ofB[0]);
    });
  });
});
