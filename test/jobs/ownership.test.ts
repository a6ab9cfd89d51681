// Jobs belong to their session: no seeing or killing another's jobs, a per-owner limit, bounded settled jobs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type JobEvent, type Runtime } from '../../src/index.js';
import { background, bash, settledJob, text, until } from '../helpers/calls.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-ownership-')));
let runtime: Runtime;
let small: Runtime;
let serial = 0;

beforeAll(async () => {
  runtime = await createRuntime({ executor: { graceMs: 300 } });
  small = await createRuntime({ executor: { graceMs: 300, threads: 1 }, jobs: { maxJobsPerOwner: 2, maxSettledPerOwner: 2 } });
});

afterAll(async () => {
  await Promise.all([runtime, small].map((r) => r?.close()));
});

const limitError = (n: number) =>
  `Error: background job limit reached for this owner (limit: ${n}); use job_kill to stop an unneeded job, wait for it to finish, then retry`;

describe('ownership', () => {
  it('another session can neither read, kill nor list a job', async () => {
    const a = runtime.session({ id: 'owner-a', cwd: work });
    const b = runtime.session({ id: 'owner-b', cwd: work });
    const id = await background(a, 'sleep 30', 'Sleep in session a');
    for (const tool of ['job_output', 'job_kill']) {
      const result = await b.callTool(tool, { job_id: id });
      expect(result.isError).toBe(true);
      expect(text(result)).toBe(`Error: job ${id} belongs to another session`);
    }
    expect(text(await b.callTool('job_output', { job_id: id, wait: true, timeout_ms: 50 }))).toBe(
      `Error: job ${id} belongs to another session`,
    );
    expect(text(await b.callTool('job_list', {}))).toBe('(no background jobs)');
    expect(runtime.jobs!.list('owner-b')).toEqual([]);
    // The refused kill changed nothing.
    expect(runtime.jobs!.list('owner-a')).toMatchObject([{ id, state: 'running', ownerId: 'owner-a', label: 'sleep 30', description: 'Sleep in session a' }]);
    expect(text(await a.callTool('job_list', {}))).toBe(`${id} [bash] running — sleep 30`);
    expect(text(await a.callTool('job_kill', { job_id: id }))).toBe(`requested cancellation of job ${id}`);
  });

  it('unknown and empty ids', async () => {
    const a = runtime.session({ id: 'owner-c', cwd: work });
    expect(text(await a.callTool('job_output', { job_id: 'bash-0' }))).toBe('Error: unknown job bash-0');
    expect(text(await a.callTool('job_kill', { job_id: 'task-1' }))).toBe('Error: unknown job task-1');
    expect(text(await a.callTool('job_output', { job_id: '' }))).toBe('Error: invalid job_id: expected a non-empty string, got ""');
    expect(text(await a.callTool('job_kill', { job_id: '' }))).toBe('Error: invalid job_id: expected a non-empty string, got ""');
  });
});

describe('the per-owner limit', () => {
  it('defaults to 10 running jobs per session, with the exact message', async () => {
    const a = runtime.session({ id: `limit-${++serial}`, cwd: work });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await background(a, 'sleep 30'));
    const refused = await a.callTool('bash', { command: 'sleep 30', description: 'One job too many', run_in_background: true });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe(limitError(10));
    expect(runtime.jobs!.list(a.id)).toHaveLength(10);
    // Another session has its own allowance.
    const b = runtime.session({ id: `limit-${++serial}`, cwd: work });
    const other = await background(b, 'sleep 30');
    await b.callTool('job_kill', { job_id: other });
    // A finished job frees its place.
    await a.callTool('job_kill', { job_id: ids[0] });
    await settledJob(runtime, ids[0]!);
    const again = await background(a, 'true');
    expect(again).toMatch(/^bash-\d+$/);
    await a.close();
  });

  it('a configured limit: stopping jobs still count, settled ones do not', async () => {
    const a = small.session({ id: `small-${++serial}`, cwd: work });
    const flag = join(work, `stubborn-${serial}`);
    const stubborn = await background(a, `trap "" TERM; touch ${flag}; sleep 30`);
    await background(a, 'sleep 30');
    const refused = await a.callTool('bash', { command: 'true', description: 'One job too many', run_in_background: true });
    expect(text(refused)).toBe(limitError(2));
    await until(() => existsSync(flag));
    await a.callTool('job_kill', { job_id: stubborn });
    expect(small.jobs!.list(a.id).find((job) => job.id === stubborn)?.state).toBe('stopping');
    expect(text(await a.callTool('bash', { command: 'true', description: 'Still too many', run_in_background: true }))).toBe(limitError(2));
    await settledJob(small, stubborn);
    expect(text(await a.callTool('bash', { command: 'true', description: 'Room again', run_in_background: true }))).toMatch(
      /^started background job bash-\d+$/,
    );
    await a.close();
  });

  it('at the limit a foreground command is not promoted: the deadline kills it', async () => {
    const a = small.session({ id: `small-${++serial}`, cwd: work });
    await background(a, 'sleep 30');
    await background(a, 'sleep 30');
    const registered: string[] = [];
    const off = small.jobs!.on('registered', (event) => registered.push(event.job.id));
    const result = await bash(a, 'sleep 60', { timeoutMs: 200 });
    off();
    expect(text(result)).toBe(
      '(no output)\n[timed out after 200ms]\n[not moved to background: job limit reached (2); job_kill one to free a slot]\n[killed by signal: SIGTERM]',
    );
    expect(result.structuredContent).toMatchObject({ kind: 'foreground', timedOut: true });
    expect(registered).toEqual([]);
    expect(small.jobs!.list(a.id)).toHaveLength(2);
    await a.close();
  });
});

describe('settled jobs per session are bounded', () => {
  it('keeps the newest maxSettledPerOwner settled jobs and forgets older ones', async () => {
    const a = small.session({ id: `settled-${++serial}`, cwd: work });
    const removed: JobEvent[] = [];
    const off = small.jobs!.on('removed', (event) => removed.push(event));
    const ids: string[] = [];
    for (let i = 1; i <= 4; i++) {
      const id = await background(a, `echo run-${i}`, `Run number ${i}`);
      expect(text(await a.callTool('job_output', { job_id: id, wait: true }))).toBe(`run-${i}\n[status: completed, exit code: 0]`);
      ids.push(id);
    }
    off();
    expect(small.jobs!.list(a.id).map((job) => job.id)).toEqual(ids.slice(2));
    expect(text(await a.callTool('job_list', {}))).toBe(
      `${ids[2]} [bash] completed — echo run-3\n${ids[3]} [bash] completed — echo run-4`,
    );
    // A forgotten job says when and why it went, and how it had ended (it printed too little for a spill file).
    const forgotten = text(await a.callTool('job_output', { job_id: ids[0] }));
    const at = /^Error: job \S+ was forgotten at (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ): /.exec(forgotten)?.[1];
    expect(forgotten).toBe(
      `Error: job ${ids[0]} was forgotten at ${at}: this session keeps only its 2 newest finished jobs; it had finished [status: completed, exit code: 0]`,
    );
    expect(Math.abs(Date.parse(at!) - Date.now())).toBeLessThan(60_000);
    expect(text(await a.callTool('job_kill', { job_id: ids[1] }))).toMatch(new RegExp(`^Error: job ${ids[1]} was forgotten at `));
    // Another session never learns of it: unknown there.
    const other = small.session({ id: `settled-${++serial}`, cwd: work });
    expect(text(await other.callTool('job_output', { job_id: ids[0] }))).toBe(`Error: unknown job ${ids[0]}`);
    expect(removed).toEqual([
      { type: 'removed', jobId: ids[0], ownerId: a.id },
      { type: 'removed', jobId: ids[1], ownerId: a.id },
    ]);
    // Another session's settled jobs are not counted against this one.
    const b = small.session({ id: `settled-${++serial}`, cwd: work });
    const idb = await background(b, 'true');
    await settledJob(small, idb);
    expect(small.jobs!.list(a.id)).toHaveLength(2);
    expect(small.jobs!.list(b.id)).toHaveLength(1);
  });

  it('running jobs are never dropped to make room', async () => {
    const a = small.session({ id: `settled-${++serial}`, cwd: work });
    const running = await background(a, 'sleep 30');
    for (let i = 0; i < 3; i++) {
      const id = await background(a, 'true');
      await a.callTool('job_output', { job_id: id, wait: true });
    }
    const jobs = small.jobs!.list(a.id);
    expect(jobs.map((job) => job.state)).toEqual(['running', 'completed', 'completed']);
    expect(jobs[0]!.id).toBe(running);
    await a.close();
  });
});
