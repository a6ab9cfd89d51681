// The local executor on real bash: defaults, cwd, stdin/env, classification of endings, grace, drain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalExecutor } from '../../src/executor/local.js';
import { alive } from '../helpers/processes.js';
import { until } from '../helpers/until.js';

let executor: LocalExecutor;
const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-run-')));

beforeAll(() => {
  executor = new LocalExecutor({ cwd: work, graceMs: 500 });
});
afterAll(async () => {
  await executor.close();
});

const run = (command: string, extra: Record<string, unknown> = {}) =>
  executor.run(executor.resolve({ command, ...extra }));

describe('resolve', () => {
  it('applies the contract defaults and caps', () => {
    const plain = new LocalExecutor({ threads: 1 });
    try {
      const spec = plain.resolve({ command: 'true' });
      expect(spec).toMatchObject({
        timeoutMs: 120_000,
        stdoutMaxBytes: 64_000,
        stderrMaxBytes: 64_000,
        maxSpillBytes: 2 * 1024 * 1024 * 1024,
        graceMs: 3_000,
        workdir: process.cwd(),
      });
      expect(plain.resolve({ command: 'true', timeoutMs: 10_000_000 }).timeoutMs).toBe(600_000);
    } finally {
      void plain.close();
    }
  });

  it('resolves a relative workdir against the configured cwd', () => {
    expect(executor.resolve({ command: 'true', workdir: 'sub/dir' }).workdir).toBe(join(work, 'sub/dir'));
  });

  it('rejects bad requests and bad config with clear errors', () => {
    expect(() => executor.resolve({ command: '  ' })).toThrow('invalid command: expected a non-empty string');
    expect(() => executor.resolve({ command: 'true', timeoutMs: -1 })).toThrow(
      'invalid timeoutMs: expected a positive number, got -1',
    );
    expect(() => new LocalExecutor({ graceMs: -5 })).toThrow(/invalid executor config: graceMs/);
    expect(() => new LocalExecutor({ bogus: 1 } as never)).toThrow(/invalid executor config/);
  });
});

describe('run', () => {
  it('returns stdout, stderr and the exit code', async () => {
    const result = await run('echo out; echo err >&2; exit 3');
    expect(result).toMatchObject({
      exitCode: 3,
      signal: null,
      timedOut: false,
      aborted: false,
      stdout: { text: 'out\n', truncated: false },
      stderr: { text: 'err\n', truncated: false },
    });
  });

  it('runs in the workdir', async () => {
    expect((await run('pwd')).stdout.text).toBe(`${work}\n`);
    expect((await run('pwd', { workdir: '/' })).stdout.text).toBe('/\n');
  });

  it('threads trusted stdin and env; stdin is /dev/null otherwise', async () => {
    expect((await run('cat', { stdin: 'hello\n' })).stdout.text).toBe('hello\n');
    expect((await run('cat; echo end')).stdout.text).toBe('end\n');
    expect((await run('readlink /proc/self/fd/0')).stdout.text).toBe('/dev/null\n');
    const env = await run('echo "$A $DSH_X"', { env: { A: 'a', DSH_X: 'trusted' }, dshEnv: { DSH_X: 'managed' } });
    expect(env.stdout.text).toBe('a managed\n');
  });

  it('has no controlling terminal and leads its own session', async () => {
    const result = await run('ps -o tty=,sid=,pid= -p $$');
    const [tty, sid, pid] = result.stdout.text.trim().split(/\s+/);
    expect(tty).toBe('?');
    expect(sid).toBe(pid);
  });

  it('classifies a timeout', async () => {
    // Long enough for bash to print its first line before the timeout, however loaded the host.
    const result = await run('echo before; sleep 30', { timeoutMs: 2_000 });
    expect(result).toMatchObject({ timedOut: true, aborted: false, exitCode: null, signal: 'SIGTERM', timeoutMs: 2_000 });
    expect(result.stdout.text).toBe('before\n');
  });

  it('reports a started command\'s deadline on its handle and lets it run on; a command that ends first has none', async () => {
    // After the deadline the command goes on by the test's word: it prints `after` once the test creates the gate.
    const gate = join(work, 'after-deadline');
    const command = `echo before; until [ -e ${gate} ]; do sleep 0.05; done; echo after; sleep 30; echo never`;
    const handle = executor.start(executor.resolve({ command, timeoutMs: 2_000 }));
    const reached = await Promise.race([handle.deadline.then(() => 'deadline'), handle.done.then(() => 'done')]);
    expect(reached).toBe('deadline');
    // Reported, not enforced: the command still runs, and ends only when its caller says so.
    writeFileSync(gate, '');
    await until(() => handle.stdout.read(0).data.toString() === 'before\nafter\n', 20_000, 'the command to run on after its deadline');
    expect(handle.status).toBe('running');
    handle.kill();
    expect(await handle.done).toMatchObject({ status: 'killed', signal: 'SIGTERM' });
    expect(handle.stdout.read(0).data.toString()).toBe('before\nafter\n');
    handle.release();

    // `true` ends long before a 3 s deadline however loaded the host; the deadline must not be reported after it.
    const quick = executor.start(executor.resolve({ command: 'true', timeoutMs: 3_000 }));
    const first = await Promise.race([quick.deadline.then(() => 'deadline'), quick.done.then(() => 'done')]);
    expect(first).toBe('done');
    const late = await Promise.race([quick.deadline.then(() => 'deadline'), new Promise((resolve) => setTimeout(() => resolve('none'), 4_000))]);
    expect(late).toBe('none');
    quick.release();
  });

  it('classifies an abort, and the first cause wins', async () => {
    // The abort comes first by construction (once bash has set its trap, which it says with a marker file) and the
    // command ignores its TERM: the timeout passes during a 4 s grace, and the result still names the abort. Ordered
    // by events, not by a short window.
    const controller = new AbortController();
    const trapped = join(work, 'trapped');
    const command = `trap '' TERM; touch ${trapped}; sleep 30`;
    const spec = executor.resolve({ command, timeoutMs: 2_000, signal: controller.signal });
    const abortOnceTrapped = (): void => {
      if (existsSync(trapped)) controller.abort();
      else setTimeout(abortOnceTrapped, 5);
    };
    const result = await executor.run({ ...spec, graceMs: 4_000, onStart: abortOnceTrapped });
    expect(result).toMatchObject({ timedOut: false, aborted: true, signal: 'SIGKILL' });
  });

  it('runs nothing when the signal is already aborted', async () => {
    const marker = join(work, 'must-not-exist');
    const result = await run(`touch ${marker}`, { signal: AbortSignal.abort() });
    expect(result.aborted).toBe(true);
    expect((await run(`test -e ${marker}; echo $?`)).stdout.text).toBe('1\n');
  });

  it('reports a self-inflicted signal as neither timed out nor aborted', async () => {
    const result = await run('kill -TERM $$');
    expect(result).toMatchObject({ timedOut: false, aborted: false, exitCode: null, signal: 'SIGTERM' });
  });

  it('kills a TERM-ignoring command with SIGKILL after the grace', async () => {
    const started = Date.now();
    // Two seconds for bash to set its trap before the TERM comes, however loaded the host.
    const result = await run("trap '' TERM; sleep 30", { timeoutMs: 2_000 });
    expect(result).toMatchObject({ timedOut: true, signal: 'SIGKILL' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000 + 500);
  });

  it('does not wait for a background grandchild holding the pipes, and kills it at close', async () => {
    const local = new LocalExecutor({ cwd: work, threads: 1 });
    const started = Date.now();
    const bg = await local.run(local.resolve({ command: 'sleep 100 & echo $!' }));
    const setsid = await local.run(local.resolve({ command: '(setsid sleep 101 & echo $! ) ; sleep 0.1' }));
    const double = await local.run(
      local.resolve({ command: '( ( setsid sleep 102 & echo $! ) & ) ; sleep 0.1' }),
    );
    // The grandchildren live 100 s: any bound well below that tells waiting from not waiting, however loaded the host.
    expect(Date.now() - started).toBeLessThan(30_000);
    const pids = [bg, setsid, double].map((r) => Number(r.stdout.text.trim()));
    for (const pid of pids) expect(alive(pid)).toBe(true);
    await local.close();
    for (const pid of pids) expect(alive(pid)).toBe(false);
  });

  it('rejects on a bad workdir with the OS error', async () => {
    await expect(run('true', { workdir: join(work, 'missing') })).rejects.toThrow(/ENOENT.*missing/);
  });
});
