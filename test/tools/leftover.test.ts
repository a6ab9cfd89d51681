// A foreground command that leaves processes running: the model is told how many and what ends them, and a job of
// the session holds them (job_list, job_kill, runtime.jobs) until they end; checked against the real process table.
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bash, collectNotices, settledJob, text, until } from '../helpers/calls.js';
import { runtimes } from '../helpers/runtimes.js';
import { processesWith } from '../helpers/processes.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-leftover-')));
const open = runtimes();
let serial = 0;

/** The job named in the leftover line. */
function leftoverJob(result: string): string {
  const match = /left running as background job (\S+);/.exec(result);
  if (!match) throw new Error(`no leftover job in ${JSON.stringify(result)}`);
  return match[1]!;
}

/** The live `sleep <seconds>` processes (not the runner, whose arguments carry the whole command). */
function sleeps(seconds: string): number[] {
  return processesWith(`sleep ${seconds}`).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] === 'sleep';
    } catch {
      return false;
    }
  });
}

const gone = (seconds: string) => until(() => sleeps(seconds).length === 0, 10_000, `sleep ${seconds} to end`);

describe('processes a foreground command leaves running', () => {
  it('are counted on a line of their own, listed as a job of the session, and ended by job_kill', async () => {
    const runtime = await open();
    const s = runtime.session({ id: `left-${++serial}`, cwd: work });
    const command = 'sleep 3001 & sleep 3001 & echo x';
    const result = await bash(s, command);
    const id = leftoverJob(text(result));
    expect(text(result)).toBe(
      `x\n[2 processes left running as background job ${id}; they end on their own, with job_kill, or when the session closes]`,
    );
    expect(result.structuredContent).toMatchObject({ kind: 'foreground', exitCode: 0, leftover: { count: 2, jobId: id } });
    expect(sleeps('3001')).toHaveLength(2);

    const listed = await s.callTool('job_list', {});
    expect(text(listed)).toBe(`${id} [bash] running — ${command}`);
    expect(listed.structuredContent).toMatchObject({
      jobs: [{ id, status: '[status: running, bash ended (exit code: 0); 2 processes left running]' }],
    });
    const [job] = runtime.jobs!.list(s.id);
    expect(job).toMatchObject({ id, state: 'running', foreground: false, label: command, description: 'run a test command' });

    expect(text(await s.callTool('job_kill', { job_id: id }))).toBe(`requested cancellation of job ${id}`);
    await gone('3001');
    await settledJob(runtime, id);
    expect(runtime.jobs!.list(s.id)[0]).toMatchObject({ id, state: 'killed' });
    await s.close();
  });

  it('settle completed when they end on their own, without a notice', async () => {
    const runtime = await open();
    const notices = collectNotices(runtime);
    const s = runtime.session({ id: `left-${++serial}`, cwd: work });
    const result = text(await bash(s, 'sleep 1.37 & exit 3'));
    const id = leftoverJob(result);
    expect(result).toBe(
      `(no output)\n[1 process left running as background job ${id}; it ends on its own, with job_kill, or when the session closes]\n[exit code: 3]`,
    );
    await settledJob(runtime, id);
    expect(sleeps('1.37')).toEqual([]);
    expect(runtime.jobs!.list(s.id)[0]).toMatchObject({ id, state: 'completed', detail: 'exit code: 3' });
    expect(notices).toEqual([]);
    await s.close();
  });

  it('end when the session closes, and a command without any leaves the result and the jobs as they were', async () => {
    const runtime = await open();
    const s = runtime.session({ id: `left-${++serial}`, cwd: work });
    const plain = await bash(s, 'echo z');
    expect(text(plain)).toBe('z\n');
    expect(plain.structuredContent).not.toHaveProperty('leftover');
    expect(runtime.jobs!.list(s.id)).toEqual([]);

    leftoverJob(text(await bash(s, '(setsid sleep 3002 &); echo y')));
    expect(sleeps('3002')).toHaveLength(1);
    await s.close();
    expect(sleeps('3002')).toEqual([]);
    expect(runtime.jobs!.list(s.id)).toEqual([]);
  });

  it('are still counted without a job registry, and end when the session closes', async () => {
    const runtime = await open({ jobs: false });
    const s = runtime.session({ id: `left-${++serial}`, cwd: work });
    expect(text(await bash(s, 'sleep 3003 & echo w'))).toBe(
      'w\n[1 process left running; it ends on its own or when the session closes]',
    );
    expect(sleeps('3003')).toHaveLength(1);
    await s.close();
    expect(sleeps('3003')).toEqual([]);
  });
});
