// Teardown against commands that attack their own supervision: stopped runners and shells, trapped TERM, a
// descendant that keeps stopping the runner, a SIGKILLed runner. close() ends within graceMs + 2 s, a second
// close() resolves only once cleanup is done, and no process is left (checked in /proc).
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type Runtime, type Session } from '../../src/index.js';
import { background, bash, settledJob, text, until } from '../helpers/calls.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
import { processesWith } from '../helpers/processes.js';

const repo = join(import.meta.dirname, '..', '..');
const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-close-faults-')));
const GRACE_MS = 500;

/** The shellring-runner process among those carrying a marker (a forked runner's title is one string, spaces
 * between its words). */
function runnerOf(marker: string): number | undefined {
  return processesWith(marker).find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/)[0]!.endsWith('shellring-runner'));
}

function describeProcess(pid: number): string {
  try {
    return `${pid} ${state(pid)} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')}`;
  } catch {
    return `${pid} (gone)`;
  }
}

function state(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return '';
  }
}

/** Starts every kind of attack in `s`; returns the markers that must all be gone after close. */
async function attack(s: Session, tag: string): Promise<{ markers: string[]; inFlight: Promise<unknown> }> {
  const m = (n: number) => `${tag}${n}`;
  // Stops its runner, then runs on.
  await background(s, `kill -STOP $PPID; sleep ${m(1)}`);
  // Stops itself, with a child running.
  await background(s, `sleep ${m(2)} & kill -STOP $$; wait`);
  // Ignores TERM and stops its runner: only the KILL after the grace ends it, and only if the runner is woken.
  await background(s, `trap '' TERM; kill -STOP $PPID; sleep ${m(3)}`);
  // A descendant in its own session that keeps stopping the runner.
  await background(s, `setsid bash -c 'while :; do kill -STOP $0 2>/dev/null; sleep 0.01; done # ${m(4)}' $PPID & sleep ${m(4)}; wait`);
  // A foreground call that stops its runner.
  const inFlight = bash(s, `kill -STOP $PPID; sleep ${m(5)}`);
  const markers = [1, 2, 3, 4, 5].map(m);
  await until(() => markers.every((marker) => processesWith(marker).length >= 2), 10_000, 'every attack running');
  // Every runner that was told to stop is stopped.
  await until(() => [1, 3, 4, 5].every((n) => state(runnerOf(m(n)) ?? 0) === 'T'), 10_000, 'runners stopped');
  return { markers, inFlight };
}

describe.each([
  ['session.close()', (_runtime: Runtime, s: Session) => s.close()],
  ['runtime.close()', (runtime: Runtime) => runtime.close()],
])('%s under attack', (name, teardown) => {
  it('ends within graceMs + 2 s, leaves no process, and a second call waits for the cleanup', async () => {
    const runtime = await createRuntime({ executor: { graceMs: GRACE_MS } });
    try {
      const s = runtime.session({ id: `attacked-${name}`, cwd: work });
      const { markers, inFlight } = await attack(s, name.startsWith('session') ? '1235.1' : '1235.2');
      const started = Date.now();
      const first = teardown(runtime, s);
      // window-ok: the second call comes while the first is under way (it waits out stopped runners and a grace);
      // however late it comes, it must find the cleanup done.
      await sleep(50);
      await teardown(runtime, s);
      const leftAtSecond = markers.flatMap((marker) => processesWith(marker)).map(describeProcess);
      await first;
      const elapsed = Date.now() - started;
      expect(leftAtSecond).toEqual([]);
      expect(elapsed).toBeLessThan(GRACE_MS + 2_000);
      expect(text((await inFlight) as never)).toContain('[killed by signal:');
    } finally {
      await runtime.close();
    }
  });
});

describe('a SIGKILLed runner', () => {
  it('takes its command and the command’s group with it, and the job settles', async () => {
    const runtime = await createRuntime({ executor: { graceMs: GRACE_MS } });
    try {
      const s = runtime.session({ id: 'runner-killed', cwd: work });
      const job = await background(s, 'sleep 1235.31 & sleep 1235.31 & sleep 1235.31; wait');
      await until(() => processesWith('1235.31').length >= 5, 10_000, 'the job running');
      process.kill(runnerOf('1235.31')!, 'SIGKILL');
      await until(() => processesWith('1235.31').length === 0, 5_000, 'the command to die with its runner');
      await settledJob(runtime, job, 5_000);
      expect(runtime.jobs!.list(s.id)).toMatchObject([{ id: job, state: 'failed' }]);
    } finally {
      await runtime.close();
    }
    expect(processesWith('1235.31')).toEqual([]);
  });
});

describe('a SIGKILLed runner whose command left its session', () => {
  it('takes that descendant with it at once, not only at close', async () => {
    const runtime = await createRuntime({ executor: { graceMs: GRACE_MS } });
    try {
      const s = runtime.session({ id: 'runner-killed-setsid', cwd: work });
      await background(s, 'setsid sleep 1235.33 & sleep 1235.34; wait');
      const sleeps = () => processesWith('1235.3').filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('sleep\0'));
      await until(() => sleeps().length === 2, 10_000, 'both sleeps');
      process.kill(runnerOf('1235.34')!, 'SIGKILL');
      // The runtime stays open: the escaped sleep must not wait for its close.
      await until(() => processesWith('1235.3').length === 0, 5_000, 'every process of the command gone');
    } finally {
      await runtime.close();
    }
  });
});

describe('a host that dies while a command holds its runner stopped', () => {
  it('leaves no process: the runner’s orphaned group is woken by the kernel and ends its tree', async () => {
    const index = join(repo, 'dist/src/index.js');
    expect(existsSync(index), 'run `npm run build` first').toBe(true);
    const script = `
      const { createRuntime } = await import(${JSON.stringify(index)});
      const runtime = await createRuntime();
      const s = runtime.session({ id: 'doomed', cwd: ${JSON.stringify(work)} });
      await s.callTool('bash', { command: 'kill -STOP $PPID; sleep 1235.41 & sleep 1235.41; wait', description: 'x', run_in_background: true });
      console.log('started');
      setInterval(() => {}, 1000);`;
    const host = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve) => host.stdout.once('data', () => resolve()));
      await until(() => processesWith('1235.41').length >= 4, 10_000, 'the job running');
      await until(() => state(runnerOf('1235.41') ?? 0) === 'T', 10_000, 'the runner stopped');
      host.kill('SIGKILL');
      await until(() => processesWith('1235.41').length === 0, 5_000, 'every process of the dead host’s command to end');
    } finally {
      host.kill('SIGKILL');
    }
  });
});
