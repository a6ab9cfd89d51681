// job_output, job_list and job_kill on real background jobs: texts, status lines, waits and kill reasons.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type Runtime, type Session } from '../../src/index.js';
import { background, settledJob, text, until } from '../helpers/calls.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-job-tools-')));
let runtime: Runtime;
let serial = 0;

beforeAll(async () => {
  // A command's TERM handler must be done within the grace however loaded the host: 2 s.
  runtime = await createRuntime({ executor: { graceMs: 2_000 } });
});

afterAll(async () => {
  await runtime?.close();
});

/** A fresh session per test, so job lists and limits never mix. */
function fresh(): Session {
  return runtime.session({ id: `job-tools-${++serial}`, cwd: work });
}

const output = async (s: Session, args: Record<string, unknown>) => text(await s.callTool('job_output', args));
const kill = async (s: Session, args: Record<string, unknown>) => text(await s.callTool('job_kill', args));
const list = async (s: Session) => text(await s.callTool('job_list', {}));

/** A command prefix that ignores TERM (in bash and what it starts), and a wait until that holds. */
function ignoringTerm(): { prefix: string; ready: () => Promise<unknown> } {
  const flag = join(work, `ignoring-${++serial}`);
  return { prefix: `trap "" TERM; touch ${flag}; `, ready: () => until(() => existsSync(flag)) };
}

/** Waits until the job has printed `bytes` bytes, watching as an observer (the model's cursor stays put). */
const printed = (id: string, bytes: number) => until(() => runtime.jobs!.follow(id, 0).total >= bytes, 10_000, `${id} output`);

describe('starting', () => {
  it('answers `started background job bash-<n>` at once, with ids counted per kind', async () => {
    const s = fresh();
    const started = Date.now();
    const first = await s.callTool('bash', { command: 'sleep 30', description: 'Sleep for a while', run_in_background: true });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(text(first)).toMatch(/^started background job bash-\d+$/);
    const id = text(first).slice('started background job '.length);
    expect(first.structuredContent).toEqual({ kind: 'background', jobId: id });
    const second = await background(s, 'true');
    expect(second).toBe(`bash-${Number(id.slice(5)) + 1}`);
    await kill(s, { job_id: id });
  });
});

describe('job_output', () => {
  it('without wait: a consuming read of what is new, then the status line', async () => {
    const s = fresh();
    const id = await background(s, 'echo first; sleep 30');
    await printed(id, 'first\n'.length);
    expect(await output(s, { job_id: id })).toBe('first\n[status: running]');
    expect(await output(s, { job_id: id })).toBe('(no new output)\n[status: running]');
    expect(await kill(s, { job_id: id })).toBe(`requested cancellation of job ${id}`);
    expect(await output(s, { job_id: id, wait: true, timeout_ms: 10_000 })).toBe('(no new output)\n[status: killed, signal: SIGTERM]');
  });

  it('with wait: blocks until the job settles, then reads everything and the final status', async () => {
    const s = fresh();
    const id = await background(s, 'echo a; sleep 0.3; echo b; exit 4');
    expect(await output(s, { job_id: id, wait: true })).toBe('a\nb\n[status: completed, exit code: 4]');
    expect(await output(s, { job_id: id, wait: true })).toBe('(no new output)\n[status: completed, exit code: 4]');
    expect(await output(s, { job_id: id })).toBe('(no new output)\n[status: completed, exit code: 4]');
  });

  it('a wait that times out is not an error: it reads what there is and says the wait expired', async () => {
    const s = fresh();
    const id = await background(s, 'echo so far; sleep 30');
    await printed(id, 'so far\n'.length);
    const started = Date.now();
    const result = await s.callTool('job_output', { job_id: id, wait: true, timeout_ms: 300 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(result.isError).toBeUndefined();
    expect(text(result)).toBe('so far\n[waited 300ms; still running]\n[status: running]');
    await kill(s, { job_id: id });
  });

  it('says more output is waiting when a read of a running job reached its maximum, and counts the unread bytes', async () => {
    const s = fresh();
    // 168894 bytes: three reads of at most 64000, all taken while the job still runs.
    const all = Array.from({ length: 30_000 }, (_, i) => `${i + 1}\n`).join('');
    const id = await background(s, 'seq 1 30000; sleep 300');
    await printed(id, all.length);
    const first = await s.callTool('job_output', { job_id: id });
    expect(text(first)).toBe(`${all.slice(0, 64_000)}\n[more output available — call job_output again]\n[status: running]`);
    expect(first.structuredContent).toMatchObject({ jobId: id, unreadBytes: all.length - 64_000 });
    const second = await s.callTool('job_output', { job_id: id });
    expect(text(second)).toBe(`${all.slice(64_000, 128_000)}\n[more output available — call job_output again]\n[status: running]`);
    expect(second.structuredContent).toMatchObject({ unreadBytes: all.length - 128_000 });
    const last = await s.callTool('job_output', { job_id: id });
    expect(text(last)).toBe(`${all.slice(128_000)}[status: running]`);
    expect(last.structuredContent).toMatchObject({ unreadBytes: 0 });
    expect(await output(s, { job_id: id })).toBe('(no new output)\n[status: running]');
    await kill(s, { job_id: id });
  });

  it('leads the first read of a finished long job with its newest output and the spill file holding all of it', async () => {
    const s = fresh();
    // 168894 bytes: more than one read; the newest 64000 bytes start inside `19334`, so the read starts at `19335`.
    const all = Array.from({ length: 30_000 }, (_, i) => `${i + 1}\n`).join('');
    const id = await background(s, 'seq 1 30000');
    await settledJob(runtime, id);
    const newest = all.slice(all.indexOf('\n19335\n') + 1);
    const first = await s.callTool('job_output', { job_id: id });
    const spill = /full output: (\S+) \(/.exec(text(first))?.[1] ?? "";
    expect(spill).toMatch(/\.stdout\.log$/);
    expect(text(first)).toBe(
      `[skipped ${all.length - newest.length} bytes of older output; full output: ${spill} (${all.length} bytes); grep or tail the file instead of paging]\n${newest}[status: completed, exit code: 0]`,
    );
    expect(first.structuredContent).toMatchObject({ unreadBytes: 0 });
    expect(await output(s, { job_id: id })).toBe('(no new output)\n[status: completed, exit code: 0]');
  });

  it('reads a running job whose reader fell behind the ring from its newest output, led by the skip line, every time', async () => {
    const s = fresh();
    const seq = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${from + i}\n`).join('');
    // 588895 bytes, then 700000 more once told: each more than the 262144 bytes a live job's ring keeps.
    const first = seq(1, 100_000);
    const all = first + seq(100_001, 200_000);
    const go = join(work, `go-${s.id}`);
    const id = await background(s, `seq 1 100000; until [ -e ${go} ]; do sleep 0.05; done; seq 100001 200000; sleep 300`);
    /** What a read shows past `consumer`: the newest 64000 bytes, from the first line start among their first 4 KiB. */
    const newestAfter = (text: string) => {
      const from = text.length - 64_000;
      return from + text.slice(from).indexOf('\n') + 1;
    };
    await printed(id, first.length);
    const read = text(await s.callTool('job_output', { job_id: id }));
    const spill = /full output: (\S+) \(/.exec(read)?.[1] ?? '';
    const start = newestAfter(first);
    expect(read).toBe(
      `[skipped ${start} bytes of older output; full output: ${spill} (${first.length} bytes); grep or tail the file instead of paging]\n${first.slice(start)}[status: running]`,
    );
    expect(readFileSync(spill, 'utf8')).toBe(first);
    writeFileSync(go, '');
    await printed(id, all.length);
    const again = await s.callTool('job_output', { job_id: id });
    const next = newestAfter(all);
    expect(text(again)).toBe(
      `[skipped ${next - first.length} bytes of older output; full output: ${spill} (${all.length} bytes); grep or tail the file instead of paging]\n${all.slice(next)}[status: running]`,
    );
    expect(again.structuredContent).toMatchObject({ unreadBytes: 0 });
    expect(await output(s, { job_id: id })).toBe('(no new output)\n[status: running]');
    await kill(s, { job_id: id });
  });

  it('says more output is waiting for a job still running too', async () => {
    const s = fresh();
    const all = Array.from({ length: 30_000 }, (_, i) => `${i + 1}\n`).join('');
    const id = await background(s, 'seq 1 30000; sleep 30');
    await printed(id, all.length);
    const first = await s.callTool('job_output', { job_id: id });
    expect(text(first)).toBe(`${all.slice(0, 64_000)}\n[more output available — call job_output again]\n[status: running]`);
    expect(first.structuredContent).toMatchObject({ jobId: id, unreadBytes: all.length - 64_000 });
    await kill(s, { job_id: id });
  });

  it('puts the status line on its own line after output without a final newline', async () => {
    const s = fresh();
    const id = await background(s, 'printf partial');
    expect(await output(s, { job_id: id, wait: true })).toBe('partial\n[status: completed, exit code: 0]');
  });

  it('shows stdout first, then a [stderr] section', async () => {
    const s = fresh();
    const id = await background(s, 'echo out; echo err >&2; exit 1');
    expect(await output(s, { job_id: id, wait: true })).toBe('out\n[stderr]\nerr\n[status: completed, exit code: 1]');
  });

  it('reports a command that died of a signal on its own', async () => {
    const s = fresh();
    const id = await background(s, 'kill -KILL $$');
    expect(await output(s, { job_id: id, wait: true })).toBe('(no new output)\n[status: completed, signal: SIGKILL]');
  });
});

describe('job_list', () => {
  it('says (no background jobs) for a session without any', async () => {
    expect(await list(fresh())).toBe('(no background jobs)');
  });

  it('lists one line per job: id, kind, status, label', async () => {
    const s = fresh();
    const stubborn = ignoringTerm();
    const long = await background(s, `${stubborn.prefix}sleep 30`, 'Wait for a long time');
    const quick = await background(s, 'true', '  Do nothing quickly  ');
    await settledJob(runtime, quick);
    await stubborn.ready();
    const longLabel = `${stubborn.prefix}sleep 30`;
    expect(await list(s)).toBe(`${long} [bash] running — ${longLabel}\n${quick} [bash] completed — true`);
    // TERM is ignored, so the job stays `stopping` until the grace ends and KILL lands.
    await kill(s, { job_id: long });
    expect(await list(s)).toBe(`${long} [bash] stopping — ${longLabel}\n${quick} [bash] completed — true`);
    await settledJob(runtime, long);
    expect(await list(s)).toBe(`${long} [bash] killed — ${longLabel}\n${quick} [bash] completed — true`);
    // The description labels the UI card, not the job.
    expect(runtime.jobs!.list(s.id).map((job) => job.description)).toEqual(['Wait for a long time', 'Do nothing quickly']);
  });

  it('labels a bash job by its command: the first line, cut with … past one line or 200 characters', async () => {
    const s = fresh();
    const twoLines = await background(s, '  echo one\necho two  ');
    const long = `echo ${'x'.repeat(300)}`;
    const wide = await background(s, long);
    const exact = `echo ${'y'.repeat(195)}`;
    const fits = await background(s, exact);
    const emoji = `echo ${'é'.repeat(194)}😀😀`;
    const astral = await background(s, emoji);
    for (const id of [twoLines, wide, fits, astral]) await settledJob(runtime, id);
    expect((await list(s)).split('\n')).toEqual([
      `${twoLines} [bash] completed — echo one…`,
      `${wide} [bash] completed — ${long.slice(0, 200)}…`,
      `${fits} [bash] completed — ${exact}`,
      // Characters, not UTF-16 units: the cut never splits the emoji.
      `${astral} [bash] completed — echo ${'é'.repeat(194)}😀…`,
    ]);
  });
});

describe('job_kill', () => {
  it('requests cancellation, then reports the finished status with the reason', async () => {
    const s = fresh();
    const id = await background(s, 'sleep 30');
    expect(await kill(s, { job_id: id, reason: 'not needed anymore' })).toBe(`requested cancellation of job ${id}`);
    await settledJob(runtime, id);
    expect(await kill(s, { job_id: id })).toBe(`job ${id} had already finished [status: killed, signal: SIGTERM; not needed anymore]`);
    expect(await output(s, { job_id: id })).toBe('(no new output)\n[status: killed, signal: SIGTERM; not needed anymore]');
  });

  it('repeats the request while the job is still stopping', async () => {
    const s = fresh();
    const stubborn = ignoringTerm();
    const id = await background(s, `${stubborn.prefix}sleep 30`);
    await stubborn.ready();
    expect(await kill(s, { job_id: id })).toBe(`requested cancellation of job ${id}`);
    expect(await kill(s, { job_id: id, reason: 'again' })).toBe(`requested cancellation of job ${id}`);
    await settledJob(runtime, id);
    // The first request's reason (none) stands; KILL ended it after the grace.
    expect(await kill(s, { job_id: id })).toBe(`job ${id} had already finished [status: killed, signal: SIGKILL]`);
  });

  it('a job that ended before the kill had already finished', async () => {
    const s = fresh();
    const id = await background(s, 'exit 0');
    await settledJob(runtime, id);
    expect(await kill(s, { job_id: id, reason: 'too late' })).toBe(`job ${id} had already finished [status: completed, exit code: 0]`);
  });

  it('keeps the exit detail of a command that handles TERM, with the reason', async () => {
    const s = fresh();
    const flag = join(work, `trap-${serial}`);
    const id = await background(s, `trap 'exit 0' TERM; touch ${flag}; sleep 30 & wait`);
    await until(() => existsSync(flag));
    await kill(s, { job_id: id, reason: 'cleanup' });
    expect(await output(s, { job_id: id, wait: true })).toBe('(no new output)\n[status: killed, exit code: 0; cleanup]');
  });

  it('a blank reason is no reason', async () => {
    const s = fresh();
    const id = await background(s, 'sleep 30');
    await kill(s, { job_id: id, reason: '   ' });
    expect(await output(s, { job_id: id, wait: true })).toBe('(no new output)\n[status: killed, signal: SIGTERM]');
  });
});
