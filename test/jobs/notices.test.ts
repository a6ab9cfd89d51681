// Completion notices: sent to the owning session when a job finishes, and withheld when the model already knows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type Notice, type Runtime, type Session } from '../../src/index.js';
import { background, bash, collectNotices, text, watchJobs } from '../helpers/calls.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-notices-')));
let runtime: Runtime;
let notices: Notice[];
let jobs: ReturnType<typeof watchJobs>;
let serial = 0;

beforeAll(async () => {
  runtime = await createRuntime({ executor: { graceMs: 500 } });
  notices = collectNotices(runtime);
  jobs = watchJobs(runtime);
});

afterAll(async () => {
  await runtime?.close();
});

function fresh(): Session {
  return runtime.session({ id: `notices-${++serial}`, cwd: work });
}

const about = (id: string) => notices.filter((notice) => notice.jobId === id);

/** The job's settlement: its notice, if one is due, has been delivered by then. */
const settledQuietly = (id: string) => jobs.settled((job) => job.id === id);

describe('completion notices', () => {
  it('tell the owning session when a job finishes on its own', async () => {
    const s = fresh();
    const id = await background(s, 'echo done; exit 3', 'Run the failing step');
    await settledQuietly(id);
    expect(about(id)).toEqual([
      {
        sessionId: s.id,
        jobId: id,
        text: `background job ${id} (bash: echo done; exit 3) finished [status: completed, exit code: 3]. Read its output with job_output.`,
      },
    ]);
    // The output is still there to read.
    expect(text(await s.callTool('job_output', { job_id: id }))).toBe('done\n[status: completed, exit code: 3]');
  });

  it('are not sent after the owner killed the job with job_kill', async () => {
    const s = fresh();
    const id = await background(s, 'sleep 30');
    await s.callTool('job_kill', { job_id: id, reason: 'no longer needed' });
    await settledQuietly(id);
    expect(about(id)).toEqual([]);
  });

  it('are not sent when a wait already returned the result', async () => {
    const s = fresh();
    // The job outlives any delay a loaded host puts between the two calls, so the wait is what sees it end.
    const id = await background(s, 'sleep 2; echo waited');
    expect(text(await s.callTool('job_output', { job_id: id, wait: true }))).toBe('waited\n[status: completed, exit code: 0]');
    await settledQuietly(id);
    expect(about(id)).toEqual([]);
  });

  it('are sent when a wait timed out before the job finished', async () => {
    const s = fresh();
    const command = 'until [ -e go-notice ]; do sleep 0.05; done';
    const id = await background(s, command, 'Wait for the test');
    expect(text(await s.callTool('job_output', { job_id: id, wait: true, timeout_ms: 50 }))).toBe('(no new output)\n[waited 50ms; still running]\n[status: running]');
    writeFileSync(join(work, 'go-notice'), '');
    await settledQuietly(id);
    expect(about(id).map((notice) => notice.text)).toEqual([
      `background job ${id} (bash: ${command}) finished [status: completed, exit code: 0]. Read its output with job_output.`,
    ]);
  });

  it("are sent after a person's kill, with the reason", async () => {
    const s = fresh();
    const id = await background(s, 'sleep 30', 'Serve the docs');
    expect(runtime.jobs!.kill(id, 'stopped from the task list')).toBe(true);
    await settledQuietly(id);
    expect(about(id)).toEqual([
      {
        sessionId: s.id,
        jobId: id,
        text: `background job ${id} (bash: sleep 30) finished [status: killed, signal: SIGTERM; stopped from the task list]. Read its output with job_output.`,
      },
    ]);
  });

  it("a person's kill without a reason says the user cancelled it", async () => {
    const s = fresh();
    const id = await background(s, 'sleep 30', 'Serve the docs');
    runtime.jobs!.kill(id);
    await settledQuietly(id);
    expect(about(id).map((notice) => notice.text)).toEqual([
      `background job ${id} (bash: sleep 30) finished [status: killed, signal: SIGTERM; cancelled by the user]. Read its output with job_output.`,
    ]);
  });

  it('are not sent for a foreground command that finished within its timeout', async () => {
    const s = fresh();
    const before = notices.length;
    expect(text(await bash(s, 'echo quick'))).toBe('quick\n');
    await jobs.settled((job) => job.ownerId === s.id);
    expect(notices.length).toBe(before);
  });

  it('are not sent when the session closes', async () => {
    const s = fresh();
    const id = await background(s, 'sleep 30');
    const quick = await background(s, 'sleep 0.05');
    await s.close();
    await jobs.settled((job) => job.ownerId === s.id);
    expect(about(id)).toEqual([]);
    expect(about(quick)).toEqual([]);
    expect(runtime.jobs!.list(s.id)).toEqual([]);
  });

  it('are not sent when the runtime closes', async () => {
    const own = await createRuntime({ executor: { graceMs: 500, threads: 1 } });
    const heard = collectNotices(own);
    const ownJobs = watchJobs(own);
    const a = own.session({ id: 'close-a', cwd: work });
    const b = own.session({ id: 'close-b', cwd: work });
    await background(a, 'sleep 30');
    await background(b, 'sleep 30');
    await background(b, 'sleep 0.05');
    await own.close();
    await ownJobs.settled();
    expect(heard).toEqual([]);
  });

  it('go only to the owner: each notice names the session that started the job', async () => {
    const a = fresh();
    const b = fresh();
    const ida = await background(a, 'true');
    const idb = await background(b, 'true');
    await settledQuietly(ida);
    await settledQuietly(idb);
    expect(about(ida).map((notice) => notice.sessionId)).toEqual([a.id]);
    expect(about(idb).map((notice) => notice.sessionId)).toEqual([b.id]);
  });
});
