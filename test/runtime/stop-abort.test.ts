// Ending a foreground call from outside: a person's stop returns the normal result with [stopped: ...]; aborting
// the call returns `tool call aborted` and leaves no process behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type Runtime, type Session } from '../../src/index.js';
import { bash, collectNotices, text, until, watchJobs } from '../helpers/calls.js';
import { processesWith } from '../helpers/processes.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-stop-')));
let runtime: Runtime;
let deadline: Runtime;
let serial = 0;

beforeAll(async () => {
  runtime = await createRuntime({ executor: { graceMs: 500 } });
  deadline = await createRuntime({ executor: { graceMs: 500, threads: 1 }, promoteOnTimeout: false });
});

afterAll(async () => {
  await Promise.all([runtime, deadline].map((r) => r?.close()));
});

function fresh(on: Runtime = runtime): Session {
  return on.session({ id: `stop-${++serial}`, cwd: work });
}

/** The foreground job of a call in flight, once its output shows `ready`. */
async function waitingJob(s: Session, ready: string): Promise<string> {
  const job = await until(() => runtime.jobs!.list(s.id)[0], 5_000, 'the foreground job');
  await until(() => runtime.jobs!.follow(job.id, 0).segments.map((seg) => seg.data.toString()).join('').includes(ready));
  return job.id;
}

describe("a person's stop while the call waits", () => {
  it('returns the output so far, then [stopped: cancelled by the user] and the signal', async () => {
    const heard = collectNotices(runtime);
    const jobs = watchJobs(runtime);
    const s = fresh();
    const call = bash(s, 'echo working; sleep 30', { timeoutMs: 60_000 });
    const id = await waitingJob(s, 'working\n');
    expect(runtime.jobs!.list(s.id)).toMatchObject([{ id, foreground: true, state: 'running' }]);
    expect(runtime.jobs!.kill(id)).toBe(true);
    const result = await call;
    expect(result.isError).toBeUndefined();
    expect(text(result)).toBe('working\n[stopped: cancelled by the user]\n[killed by signal: SIGTERM]');
    expect(text(result).endsWith('[stopped: cancelled by the user]\n[killed by signal: SIGTERM]')).toBe(true);
    expect(result.structuredContent).toMatchObject({ kind: 'foreground', stopped: 'cancelled by the user', aborted: false, timedOut: false });
    // The call reported it; the job left with the result and no notice repeats it.
    expect(runtime.jobs!.list(s.id)).toEqual([]);
    await jobs.settled((job) => job.id === id);
    expect(heard.filter((notice) => notice.jobId === id)).toEqual([]);
  });

  it('names the reason a person gave', async () => {
    const s = fresh();
    const call = bash(s, 'echo building; sleep 30');
    const id = await waitingJob(s, 'building\n');
    runtime.jobs!.kill(id, 'a newer build started');
    expect(text(await call)).toBe('building\n[stopped: a newer build started]\n[killed by signal: SIGTERM]');
  });

  it('a stop after the command finished changes nothing', async () => {
    const s = fresh();
    const result = await bash(s, 'echo done');
    expect(text(result)).toBe('done\n');
    expect(runtime.jobs!.list(s.id)).toEqual([]);
  });
});

describe('aborting the call', () => {
  it.each([
    ['while a job backs the call', () => fresh(), 'sleep 1234.51'],
    ['under the executor deadline', () => fresh(deadline), 'sleep 1234.52'],
  ])('kills the command and answers `tool call aborted` (%s)', async (_name, open, marker) => {
    const s = open();
    const controller = new AbortController();
    const call = s.callTool('bash', { command: `${marker} & ${marker}; wait`, description: 'Sleep twice' }, { signal: controller.signal });
    // The runner and bash carry the command line too: four processes once both sleeps run.
    await until(() => processesWith(marker).length >= 4, 5_000, 'the sleeps');
    controller.abort();
    const result = await call;
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('Error: tool call aborted');
    expect(result.structuredContent).toBeUndefined();
    await until(() => processesWith(marker).length === 0, 5_000, 'the sleeps to be gone');
    expect(processesWith(marker)).toEqual([]);
    expect(runtime.jobs!.list(s.id)).toEqual([]);
  });

  it('an abort after the command finished is too late to matter', async () => {
    const s = fresh();
    const controller = new AbortController();
    const result = await s.callTool('bash', { command: 'echo fine', description: 'Echo a word' }, { signal: controller.signal });
    controller.abort();
    expect(text(result)).toBe('fine\n');
  });
});
