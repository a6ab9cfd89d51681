// The kill layers beneath the host's sweep, each on its own: the grace KILL, the runner's own tree kill and the fork
// server's stray sweep, with the host sweep turned off so that it cannot stand in for any of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalExecutor } from '../../src/executor/local.js';
import { alive } from '../helpers/processes.js';
import { until } from '../helpers/until.js';

// Read by every sweep, in this thread and in the supervisor workers (which copy the environment when they start).
process.env.SHELLRING_TEST_NO_HOST_SWEEP = '1';

const GRACE_MS = 500;
/** Generous: a loaded machine is slow, but not seconds slow; a missing KILL waits for the command's own end. */
const BOUND_MS = 5_000;
const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-no-sweep-')));
let executor: LocalExecutor;
/** Processes a test started and must not outlive it, whatever it found. */
const strays: number[] = [];

beforeAll(() => {
  executor = new LocalExecutor({ cwd: work, graceMs: GRACE_MS, threads: 1 });
});
afterAll(async () => {
  for (const pid of strays) kill(pid, 'SIGKILL');
  await executor.close();
  rmSync(work, { recursive: true, force: true });
});

function kill(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

/** Settles with the promise, or rejects once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The fork servers this process started (children of its worker threads). */
function servers(): number[] {
  const found: number[] = [];
  for (const task of readdirSync(`/proc/${process.pid}/task`)) {
    for (const pid of readFileSync(`/proc/${process.pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean)) {
      try {
        if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').endsWith('shellring-runner\0--serve\0') && alive(Number(pid))) found.push(Number(pid));
      } catch {
        // Ended while we looked.
      }
    }
  }
  return found;
}

/** The pids below `pid`: its children, theirs, and so on. */
function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  } catch {
    // Ended while we looked.
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** The pid a command wrote to `file`, once it is there. */
async function pidIn(file: string): Promise<number> {
  await until(() => existsSync(file) && readFileSync(file, 'utf8').endsWith('\n'), 10_000, `${file} written`);
  return Number(readFileSync(file, 'utf8').trim());
}

describe('without the host sweep', () => {
  it('the grace ends a TERM-ignoring command with SIGKILL, soon after the grace', async () => {
    const started = Date.now();
    // Two seconds for bash to set its trap before the TERM comes, however loaded the host.
    const timeoutMs = 2_000;
    const run = executor.run(executor.resolve({ command: "trap '' TERM; sleep 30", timeoutMs }));
    const result = await within(run, timeoutMs + GRACE_MS + BOUND_MS, 'the KILL after the grace');
    expect(result).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGKILL' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(timeoutMs + GRACE_MS);
  });

  it("the runner's own tree kill ends what left the command's session, with the fork server unable to help", async () => {
    const file = join(work, 'runner-stray');
    const handle = executor.start(executor.resolve({ command: `setsid sleep 301 >/dev/null 2>&1 & echo $! > ${file}` }));
    const stray = await pidIn(file);
    strays.push(stray);
    const outcome = await handle.done;
    expect(outcome.leftover).toBe(1);
    expect(alive(stray)).toBe(true);
    // The runner took the stray in when bash ended. Stopped, the server and every other process it forked (a
    // session's spawner, the runner's parent, sweeps what a runner leaves to it as the server does) cannot end it:
    // whatever dies now, the runner killed.
    const [server] = servers();
    expect(server).toBeDefined();
    const runner = parentOf(stray);
    const runnerTree = new Set([runner, ...descendants(runner)]);
    expect(descendants(server!)).toContain(runner);
    const helpers = [server!, ...descendants(server!)].filter((pid) => !runnerTree.has(pid));
    for (const pid of helpers) kill(pid, 'SIGSTOP');
    try {
      handle.kill();
      // The runner ends its tree before it ends itself: once it is gone, the stray must be too (a kill from
      // elsewhere, later, proves nothing).
      await until(() => !alive(runner), BOUND_MS, 'the runner to end');
      expect(alive(stray)).toBe(false);
    } finally {
      for (const pid of helpers) kill(pid, 'SIGCONT');
    }
  });

  it("the fork server ends what a SIGKILLed runner left outside the command's group", async () => {
    const file = join(work, 'server-stray');
    // bash's parent is its runner.
    const handle = executor.start(
      executor.resolve({ command: `setsid sleep 302 >/dev/null 2>&1 & echo $! > ${file}; kill -9 $PPID; sleep 30` }),
    );
    const stray = await pidIn(file);
    strays.push(stray);
    await within(handle.done, BOUND_MS, 'the command to end with its runner');
    await until(() => !alive(stray), BOUND_MS, 'the fork server to kill the stray');
  });
});
