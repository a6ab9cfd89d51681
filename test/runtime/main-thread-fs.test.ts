// The main thread makes no synchronous filesystem, child_process or signal call while a call runs or a new session
// makes its first call, and none at all on cgroupfs or the process table (/proc) then, nor while a session with live
// processes in its cgroup closes.
import childProcess, { spawn } from 'node:child_process';
import fs from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syncBuiltinESMExports } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { bash, text, until } from '../helpers/calls.js';
import { alive } from '../helpers/processes.js';
import { runtimes } from '../helpers/runtimes.js';

const open = runtimes();
const work = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), 'shellring-main-thread-fs-')));

/** Where cgroups are mounted: the main thread leaves every call under it to the workers. */
const CGROUPFS = '/sys/fs/cgroup';
/** The process table: reading it is the supervisors' (waiting detection, sweeps), never the main thread's. */
const PROCFS = '/proc/';

/**
 * Counts, on this thread (ESM importers included) until the returned stop is called: every `fs.*Sync` and
 * `child_process.*Sync` call, every `process.kill`, and every `fs/promises` call on a cgroupfs or /proc path.
 */
function countSyncCalls(): { calls: string[]; stop: () => void } {
  const calls: string[] = [];
  const restores: (() => void)[] = [];
  const wrap = (table: Record<string, unknown>, name: string, counts: (args: unknown[]) => boolean = () => true) => {
    const original = table[name] as (...args: unknown[]) => unknown;
    restores.push(() => (table[name] = original));
    table[name] = function (this: unknown, ...args: unknown[]) {
      if (counts(args)) calls.push(`${name}(${String(args[0])})`);
      return original.apply(this, args);
    };
  };
  const syncNames = (table: Record<string, unknown>) => Object.keys(table).filter((name) => name.endsWith('Sync') && typeof table[name] === 'function');
  const fsTable = fs as unknown as Record<string, unknown>;
  const cpTable = childProcess as unknown as Record<string, unknown>;
  const promises = fs.promises as unknown as Record<string, unknown>;
  for (const name of syncNames(fsTable)) wrap(fsTable, name);
  for (const name of syncNames(cpTable)) wrap(cpTable, name);
  for (const name of Object.keys(promises).filter((key) => typeof promises[key] === 'function')) {
    wrap(promises, name, ([path]) => String(path).startsWith(CGROUPFS) || String(path).startsWith(PROCFS));
  }
  wrap(process as unknown as Record<string, unknown>, 'kill');
  syncBuiltinESMExports();
  return {
    calls,
    stop: () => {
      for (const restore of restores.splice(0)) restore();
      syncBuiltinESMExports();
    },
  };
}

let counting: ReturnType<typeof countSyncCalls> | undefined;
afterEach(() => counting?.stop());

describe('the main thread and the filesystem', () => {
  it('counts calls made through named imports (the counter itself can fail)', async () => {
    counting = countSyncCalls();
    fs.existsSync('/');
    childProcess.execFileSync('true');
    process.kill(process.pid, 0);
    await fs.promises.readFile(`${CGROUPFS}/cgroup.procs`).catch(() => undefined);
    await fs.promises.readFile('/proc/self/stat');
    await fs.promises.readFile('/etc/hostname').catch(() => undefined);
    expect(counting.calls).toEqual([
      'existsSync(/)',
      'execFileSync(true)',
      `kill(${process.pid})`,
      `readFile(${CGROUPFS}/cgroup.procs)`,
      'readFile(/proc/self/stat)',
    ]);
  });

  for (const [name, options] of [
    ['defaults', {}],
    ['session limits (cgroups)', { executor: { limits: { processes: 500, memoryBytes: 1 << 30, cpuWeight: 100 } } }],
    ['confined, workspace-write', { sandbox: { mode: 'workspace-write' } }],
  ] as const) {
    it(`makes none during a warm call, a new session's opening and its first call (${name})`, async () => {
      const runtime = await open(options);
      const warm = runtime.session({ id: 'warm', cwd: work });
      expect(text(await bash(warm, 'echo first'))).toBe('first\n');

      counting = countSyncCalls();
      // Opening is synchronous by its API; a sandbox's pin of the workspace root is resolved off the event loop.
      const fresh = runtime.session({ id: 'fresh', cwd: work });
      expect(text(await bash(warm, 'echo again'))).toBe('again\n');
      expect(text(await bash(fresh, 'head -c 200000 /dev/zero | tr "\\0" x; echo'))).toContain('[output truncated; full output: /');
      expect(text(await bash(fresh, 'echo x', { workdir: '/nonexistent-dir' }))).toContain("ENOENT: no such file or directory, chdir '/nonexistent-dir'");
      counting.stop();
      expect(counting.calls.join("\n")).toBe("");
    });
  }

  it.runIf(process.getuid?.() === 0)(
    "leaves a closing session's cgroup to a worker: its live processes killed, its directory removed",
    async () => {
      const runtime = await open({ executor: { limits: { processes: 500 } } });
      const { containment } = runtime.executor.cgroups;
      expect(containment).toMatch(/^cgroup-v[12]$/);
      const session = runtime.session({ id: 'closing', cwd: work });
      const own = text(await bash(session, 'grep -E ":pids:|^0::" /proc/self/cgroup | head -1 | cut -d: -f3')).trim();
      const dir = containment === 'cgroup-v1' ? `${CGROUPFS}/pids${own}` : `${CGROUPFS}${own}`;
      expect(own).toMatch(/\/session-\d+$/);
      expect(fs.existsSync(dir)).toBe(true);
      // A process no runner knows of, in the session's cgroup: only the cgroup's own teardown can end it.
      const stray = spawn('sleep', ['600'], { stdio: 'ignore' });
      const exited = once(stray, 'exit');
      fs.writeFileSync(`${dir}/cgroup.procs`, String(stray.pid));
      // A background job of the session runs there too.
      expect(text(await bash(session, 'sleep 600', { run_in_background: true }))).toMatch(/job/i);

      counting = countSyncCalls();
      await session.close();
      counting.stop();
      expect(counting.calls.join('\n')).toBe('');
      const [, signal] = await exited;
      expect(signal).toBe('SIGKILL');
      await until(() => !fs.existsSync(dir), 10_000, "the session's cgroup removed");
      expect(alive(stray.pid!)).toBe(false);
    },
    60_000,
  );
});
