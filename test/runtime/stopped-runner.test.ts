// A command that stops its own runner (SIGSTOP to its parent) and then ends: the runner is woken, the call answers at
// once with the command's own result, and a job in that state settles as what it was, never as killed.
import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { background, bash, settledJob, text, until } from '../helpers/calls.js';
import { runtimes } from '../helpers/runtimes.js';

const open = runtimes();
const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-stopped-runner-')));

describe('a runner stopped by its command', () => {
  it('is woken once bash has ended: the foreground call answers long before its timeout', async () => {
    const runtime = await open();
    const session = runtime.session({ id: 'stops-runner', cwd: work });
    const started = Date.now();
    // A 60 s timeout: without the wake the call would wait for it (the runner cannot report while stopped).
    const result = await bash(session, 'kill -STOP $PPID; echo after the stop; exit 3', { timeoutMs: 60_000 });
    expect(text(result)).toBe('after the stop\n[exit code: 3]');
    expect(result.structuredContent).toMatchObject({ exitCode: 3, signal: null, timedOut: false });
    // Generous: it proves the call did not wait for the timeout, not how fast the wake is.
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('a background job that stopped its runner and exited 0 settles completed, and job_kill then finds it finished', async () => {
    const runtime = await open();
    const session = runtime.session({ id: 'stops-runner-job', cwd: work });
    const id = await background(session, 'kill -STOP $PPID; echo done');
    await settledJob(runtime, id, 30_000);
    expect(text(await session.callTool('job_output', { job_id: id }))).toBe('done\n[status: completed, exit code: 0]');
    expect(text(await session.callTool('job_kill', { job_id: id }))).toBe(`job ${id} had already finished [status: completed, exit code: 0]`);
  });

  it('a job killed while its runner is stopped after bash ended reads as it ended, not as killed', async () => {
    const runtime = await open();
    const session = runtime.session({ id: 'stops-runner-kill', cwd: work });
    const pidFile = join(work, 'bash.pid');
    // A descendant keeps the output pipes open (so their end brings no wake) while bash itself exits 0, past the
    // first seconds in which an ended child wakes the runner too: only the kill finds it so.
    const id = await background(session, `echo $$ > ${pidFile}; (sleep 60 &); sleep 6; kill -STOP $PPID; exit 0`);
    // bash a zombie under its stopped runner: the state in which the kill must be judged truthfully.
    let pid = 0;
    await until(() => {
      pid ||= Number(existsSync(pidFile) ? readFileSync(pidFile, 'utf8') : 0);
      return pid > 0 && existsSync(`/proc/${pid}/stat`) && readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.startsWith('Z');
    }, 30_000, 'bash ended under its stopped runner');
    expect(runtime.jobs!.list().find((j) => j.id === id)!.state).toBe('running');
    await session.callTool('job_kill', { job_id: id });
    await settledJob(runtime, id, 30_000);
    expect(text(await session.callTool('job_output', { job_id: id }))).toBe('(no new output)\n[status: completed, exit code: 0]');
  });
});
