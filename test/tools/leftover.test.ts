// A foreground command that leaves processes running: the model is told how many and what ends them, and a job of
// the session holds them (job_list, job_kill, runtime.jobs) until they end; checked against the real process table.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
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
    // The one process left waits on a FIFO until the test writes it: it outlives bash by construction, then ends.
    const fifo = join(work, `left-${serial}.fifo`);
    execFileSync('mkfifo', [fifo]);
    const result = text(await bash(s, `cat ${fifo} >/dev/null & exit 3`));
    const id = leftoverJob(result);
    expect(result).toBe(
      `(no output)\n[1 process left running as background job ${id}; it ends on its own, with job_kill, or when the session closes]\n[exit code: 3]`,
    );
    writeFileSync(fifo, '');
    await settledJob(runtime, id);
    expect(processesWith(fifo)).toEqual([]);
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

  it.each(['bubblewrap', 'landlock'] as const)('under %s are ended with the command, and the result says so (foreground and background, with and without jobs)', async (backend) => {
    const runtime = await open({ sandbox: { backend, mode: 'read-only' } });
    const s = runtime.session({ id: `left-${++serial}`, cwd: work });
    expect(text(await bash(s, 'sleep 3004 & sleep 3004 & echo w'))).toBe(
      'w\n[2 processes left running were ended with the command: in the sandbox nothing outlives its command; run a server as the whole command of a run_in_background call, not with &]',
    );
    expect(sleeps('3004')).toEqual([]);
    const started = await s.callTool('bash', { command: 'sleep 3005 & echo w', description: 'leave a process', run_in_background: true });
    const id = /^started background job (\S+)$/.exec(text(started))![1]!;
    expect(text(await s.callTool('job_output', { job_id: id, wait: true }))).toBe(
      'w\n[1 process left running was ended with the command: in the sandbox nothing outlives its command; run a server as the whole command of a run_in_background call, not with &]\n[status: completed, exit code: 0]',
    );
    const quiet = await open({ jobs: false, sandbox: { backend, mode: 'read-only' } });
    expect(text(await bash(quiet.session({ id: `left-${++serial}`, cwd: work }), 'sleep 3006 & echo w'))).toBe(
      'w\n[1 process left running was ended with the command: in the sandbox nothing outlives its command]',
    );
    // A command that leaves nothing is told nothing, nor one ended from outside (its processes end with it).
    expect(text(await bash(s, 'sleep 0 & wait; echo w'))).toBe('w\n');
    // What ends on its own as bash ends was not left running: a process substitution that reads until bash, its only
    // writer, is gone (as ssh's ProxyCommand ends when ssh hangs it up), however late the host runs it.
    for (let round = 0; round < 10; round++) expect(text(await bash(s, 'exec 3> >(cat >/dev/null); echo w'))).toBe('w\n');
    expect(text(await bash(quiet.session({ id: `left-${++serial}`, cwd: work }), 'sleep 3007 & echo w; sleep 3007', { timeoutMs: 300 }))).toBe(
      'w\n[timed out after 300ms]\n[killed by signal: SIGTERM]',
    );
  });
});
