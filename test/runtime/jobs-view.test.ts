// runtime.jobs, the observer API of a web view: list by session, follow by offset without moving the model's cursor,
// and the job events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type JobEvent, type Runtime, type Session } from '../../src/index.js';
import { background, settledJob, text, until } from '../helpers/calls.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-view-')));
let runtime: Runtime;
let serial = 0;

beforeAll(async () => {
  runtime = await createRuntime({ executor: { graceMs: 500 }, jobs: { pollMs: 20 } });
});

afterAll(async () => {
  await runtime?.close();
});

function fresh(): Session {
  return runtime.session({ id: `view-${++serial}`, cwd: work });
}

const joined = (read: { segments: { kind: string; data: Buffer }[] }) =>
  read.segments.map((segment) => `${segment.kind}:${segment.data.toString('utf8')}`).join('|');

describe('list', () => {
  it('lists every job, or one session’s', async () => {
    const a = fresh();
    const b = fresh();
    const ida = await background(a, 'sleep 30', 'Sleep in a');
    const idb = await background(b, 'sleep 30', 'Sleep in b');
    expect(runtime.jobs!.list(a.id)).toMatchObject([{ id: ida, ownerId: a.id, kind: 'bash', label: 'sleep 30', description: 'Sleep in a', state: 'running', foreground: false }]);
    expect(runtime.jobs!.list(b.id).map((job) => job.id)).toEqual([idb]);
    const all = runtime.jobs!.list().map((job) => job.id);
    expect(all).toContain(ida);
    expect(all).toContain(idb);
    expect(runtime.jobs!.list('nobody')).toEqual([]);
    const info = runtime.jobs!.list(a.id)[0]!;
    expect(typeof info.startedAt).toBe('number');
    expect(info.settledAt).toBeUndefined();
    await a.close();
    await b.close();
  });
});

describe('follow', () => {
  it('reads by absolute offset and never moves the model’s cursor', async () => {
    const s = fresh();
    // stderr is written once the test has seen stdout in the ring: the order of the two pipes is the test's.
    const id = await background(s, 'echo one; echo two; until [ -e go-oops ]; do sleep 0.05; done; echo oops >&2');
    await until(() => runtime.jobs!.follow(id, 0).to === 8, 10_000, 'stdout in the ring');
    writeFileSync(join(work, 'go-oops'), '');
    await settledJob(runtime, id);
    const whole = runtime.jobs!.follow(id, 0);
    expect(whole).toMatchObject({ from: 0, to: 13, total: 13, lossy: false, earliest: 0, settled: true });
    expect(joined(whole)).toMatch(/^stdout:one\n(\|?stdout:)?two\n\|stderr:oops\n$/);
    const later = runtime.jobs!.follow(id, 4);
    expect(later).toMatchObject({ from: 4, to: 13 });
    expect(later.segments.map((segment) => segment.data.toString()).join('')).toBe('two\noops\n');
    const bounded = runtime.jobs!.follow(id, 0, 3);
    expect(bounded.segments.map((segment) => segment.data.toString()).join('')).toBe('one');
    expect(bounded.to).toBe(3);
    expect(runtime.jobs!.follow(id, 13)).toMatchObject({ from: 13, to: 13, segments: [] });
    // The model still gets everything, once.
    expect(text(await s.callTool('job_output', { job_id: id }))).toBe('one\ntwo\n[stderr]\noops\n[status: completed, exit code: 0]');
    expect(text(await s.callTool('job_output', { job_id: id }))).toBe('(no new output)\n[status: completed, exit code: 0]');
    // Observers can still read what the ring retains after the model's terminal read.
    expect(runtime.jobs!.follow(id, 0).to).toBe(13);
  });

  it('follows a live job while the model reads it separately', async () => {
    const s = fresh();
    // After tick 2 the job waits for the test: the model's read below surely finds it running.
    const id = await background(s, 'for i in 1 2; do echo "tick $i"; sleep 0.1; done; until [ -e go-follow ]; do sleep 0.05; done; for i in 3 4 5; do echo "tick $i"; sleep 0.1; done');
    let from = 0;
    let observed = '';
    let modelRead = '';
    while (true) {
      const read = runtime.jobs!.follow(id, from);
      observed += read.segments.map((segment) => segment.data.toString()).join('');
      from = read.to;
      const job = runtime.jobs!.list(s.id).find((j) => j.id === id)!;
      if (job.state !== 'running' && read.settled && read.to === read.total) break;
      if (observed.includes('tick 2') && modelRead === '') {
        modelRead = text(await s.callTool('job_output', { job_id: id }));
        expect(modelRead).toMatch(/^tick 1\ntick 2\n\[status: running\]$/);
        writeFileSync(join(work, 'go-follow'), '');
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const expected = 'tick 1\ntick 2\ntick 3\ntick 4\ntick 5\n';
    expect(observed).toBe(expected);
    const rest = text(await s.callTool('job_output', { job_id: id }));
    expect(modelRead.slice(0, modelRead.lastIndexOf('[status:')) + rest.slice(0, rest.lastIndexOf('[status:'))).toBe(expected);
  });

  it('throws for unknown ids', () => {
    expect(() => runtime.jobs!.follow('bash-0', 0)).toThrow('unknown job bash-0');
    expect(() => runtime.jobs!.kill('bash-0')).toThrow('unknown job bash-0');
  });
});

describe('events', () => {
  it('registered, output, stopping, settled, removed', async () => {
    const s = fresh();
    const events: JobEvent[] = [];
    const types = ['registered', 'output', 'stopping', 'settled', 'removed'] as const;
    const offs = types.map((type) =>
      runtime.jobs!.on(type, (event) => {
        const owner = 'job' in event ? event.job.ownerId : 'ownerId' in event ? event.ownerId : undefined;
        const jobId = 'job' in event ? event.job.id : event.jobId;
        if (owner === s.id || runtime.jobs!.list(s.id).some((job) => job.id === jobId)) events.push(event);
      }),
    );
    const id = await background(s, 'echo hello; sleep 30', 'Say hello and wait');
    await until(() => events.some((event) => event.type === 'output'), 5_000, 'an output event');
    expect(runtime.jobs!.kill(id, 'enough')).toBe(true);
    await settledJob(runtime, id);
    await s.close();
    for (const off of offs) off();

    expect(events.map((event) => event.type)).toEqual(['registered', 'output', 'stopping', 'settled', 'removed']);
    const [registered, output, stopping, settled, removed] = events as [
      Extract<JobEvent, { type: 'registered' }>,
      Extract<JobEvent, { type: 'output' }>,
      Extract<JobEvent, { type: 'stopping' }>,
      Extract<JobEvent, { type: 'settled' }>,
      Extract<JobEvent, { type: 'removed' }>,
    ];
    expect(registered.job).toMatchObject({ id, kind: 'bash', description: 'Say hello and wait', ownerId: s.id, state: 'running' });
    expect(output).toEqual({ type: 'output', jobId: id, total: 'hello\n'.length });
    expect(stopping.job).toMatchObject({ id, state: 'stopping', killReason: 'enough' });
    expect(settled.job).toMatchObject({ id, state: 'killed', detail: 'signal: SIGTERM', killReason: 'enough' });
    expect(typeof settled.job.settledAt).toBe('number');
    expect(removed).toEqual({ type: 'removed', jobId: id, ownerId: s.id });
  });

  it('an unsubscribed listener hears nothing more', async () => {
    const s = fresh();
    const heard: JobEvent[] = [];
    const off = runtime.jobs!.on('registered', (event) => heard.push(event));
    off();
    await background(s, 'true');
    expect(heard).toEqual([]);
  });
});
