// Timeout promotion: a foreground command still running at its timeout becomes a background job whose reads continue
// exactly after the bytes the call showed; a command that finishes in time leaves nothing behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type JobEvent, type Runtime, type Session } from '../../src/index.js';
import { bash, collectNotices, jobIdOf, text, until, watchJobs } from '../helpers/calls.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-promotion-')));
let runtime: Runtime;
let serial = 0;

const HAND_OFF =
  'The command keeps running in the background. You will be notified when it finishes; read newer output with job_output, stop it with job_kill.';

beforeAll(async () => {
  runtime = await createRuntime({ executor: { graceMs: 500 } });
});

afterAll(async () => {
  await runtime?.close();
});

function fresh(on: Runtime = runtime): Session {
  return on.session({ id: `promotion-${++serial}`, cwd: work });
}

/** Splits a promoted result into the output it showed and the job id it names. */
function promoted(result: string, timeoutMs: number): { shown: string; id: string } {
  const match = new RegExp(
    `^([\\s\\S]*)\\[still running after ${timeoutMs}ms; moved to background job (bash-\\d+)\\]\\n${HAND_OFF.replace(/[.;,]/g, '\\$&')}$`,
  ).exec(result);
  if (!match) throw new Error(`not a promotion: ${JSON.stringify(result)}`);
  return { shown: match[1]!, id: match[2]! };
}

/** The delta of a job_output text: everything before its status line, with `(no new output)` as nothing. The
 * stream here is whole lines, so the newline before the status line is the delta's own. */
function delta(output: string): { body: string; status: string } {
  const cut = output.lastIndexOf('\n[status: ') + 1;
  const body = output.slice(0, cut);
  return { body: body === '(no new output)\n' ? '' : body, status: output.slice(cut) };
}

describe('promotion', () => {
  it('hands over a numbered stream, and the reads continue with no line shown twice or skipped', async () => {
    const s = fresh();
    const lines = (from: number, to: number) => `for i in $(seq ${from} ${to}); do echo "line $i"; done`;
    const gate = (name: string) => `until [ -e ${name} ]; do sleep 0.05; done`;
    // Each part of the stream waits for the test, not for a clock: the command is still running at the timeout
    // however slowly the host runs, and a read after the hand-over finds the lines the first gate let out.
    const command = `${lines(1, 20)}; ${gate('go-more')}; ${lines(21, 40)}; ${gate('go-last')}; ${lines(41, 60)}`;
    const result = await bash(s, command, { timeoutMs: 400 });
    const { shown, id } = promoted(text(result), 400);
    expect(result.structuredContent).toEqual({ kind: 'promoted', jobId: id, timeoutMs: 400, output: shown });
    expect(shown).toMatch(/^(line \d+\n)*$/);
    expect(runtime.jobs!.list(s.id)).toMatchObject([{ id, state: 'running', foreground: false }]);

    let seen = shown;
    writeFileSync(join(work, 'go-more'), '');
    // Read while it runs (it waits at the second gate) until line 40 is out.
    await until(async () => {
      const read = delta(text(await s.callTool('job_output', { job_id: id })));
      expect(read.status).toBe('[status: running]');
      seen += read.body;
      return seen.endsWith('line 40\n');
    }, 30_000, 'line 40 read while the job runs');
    writeFileSync(join(work, 'go-last'), '');
    const last = delta(text(await s.callTool('job_output', { job_id: id, wait: true })));
    expect(last.status).toBe('[status: completed, exit code: 0]');
    seen += last.body;
    expect(seen).toBe(Array.from({ length: 60 }, (_, i) => `line ${i + 1}\n`).join(''));
    expect(text(await s.callTool('job_output', { job_id: id }))).toBe('(no new output)\n[status: completed, exit code: 0]');
  });

  it('seeds the hand-off with the newest output from a line start, says what it skipped, and continues after it', async () => {
    const s = fresh();
    // 1988895 bytes, far more than the ring keeps; the command then sits quietly until its timeout.
    const all = Array.from({ length: 300_000 }, (_, i) => `${i + 1}\n`).join('');
    const result = await bash(s, 'seq 1 300000; sleep 300', { timeoutMs: 10_000 });
    const { shown, id } = promoted(text(result), 10_000);
    // The newest 64000 bytes start inside `290858`: the seed starts at the next line.
    const newest = all.slice(all.indexOf('\n290859\n') + 1);
    const spill = /full output: (\S+) \(/.exec(shown)?.[1] ?? '';
    expect(spill).toMatch(/\.stdout\.log$/);
    expect(shown).toBe(
      `[skipped ${all.length - newest.length} bytes of older output; full output: ${spill} (${all.length} bytes); grep or tail the file instead of paging]\n${newest}`,
    );
    expect(text(await s.callTool('job_output', { job_id: id }))).toBe('(no new output)\n[status: running]');
    await s.callTool('job_kill', { job_id: id });
  });

  it('newline-terminates a partial line in the hand-off, and continues after its bytes', async () => {
    const s = fresh();
    // The rest waits for the test, not for a clock: however slowly the host runs, the timeout comes before it.
    const result = await bash(s, "printf 'partial'; until [ -e go-rest ]; do sleep 0.05; done; echo ' rest'", { timeoutMs: 3_000 });
    const { shown, id } = promoted(text(result), 3_000);
    expect(shown).toBe('partial\n');
    expect(result.structuredContent).toMatchObject({ kind: 'promoted', output: 'partial' });
    writeFileSync(join(work, 'go-rest'), '');
    expect(text(await s.callTool('job_output', { job_id: id, wait: true }))).toBe(' rest\n[status: completed, exit code: 0]');
  });

  it('a command with no output so far hands over with the marker first', async () => {
    const s = fresh();
    const result = await bash(s, 'sleep 30', { timeoutMs: 100 });
    expect(text(result)).toBe(`[still running after 100ms; moved to background job ${jobIdOf(result)}]\n${HAND_OFF}`);
    expect(text(await s.callTool('job_kill', { job_id: jobIdOf(result) }))).toBe(`requested cancellation of job ${jobIdOf(result)}`);
  });

  it('the promoted job notifies its session when it finishes', async () => {
    const heard = collectNotices(runtime);
    const jobs = watchJobs(runtime);
    const s = fresh();
    const command = 'until [ -e go-finally ]; do sleep 0.05; done; echo finally';
    const result = await bash(s, command, { timeoutMs: 100, description: 'Wait and print' });
    const id = jobIdOf(result);
    writeFileSync(join(work, 'go-finally'), '');
    await jobs.settled((job) => job.id === id);
    expect(heard.filter((notice) => notice.jobId === id)).toEqual([
      {
        sessionId: s.id,
        jobId: id,
        text: `background job ${id} (bash: ${command}) finished [status: completed, exit code: 0]. Read its output with job_output.`,
      },
    ]);
    expect(text(await s.callTool('job_output', { job_id: id }))).toBe('finally\n[status: completed, exit code: 0]');
  });

  it('a command that finishes in time leaves no job, though observers saw it run', async () => {
    const s = fresh();
    const events: JobEvent[] = [];
    const offs = (['registered', 'settled', 'removed'] as const).map((type) =>
      runtime.jobs!.on(type, (event) => {
        if (('job' in event ? event.job.ownerId : event.ownerId) === s.id) events.push(event);
      }),
    );
    expect(text(await bash(s, 'echo in time', { timeoutMs: 5_000 }))).toBe('in time\n');
    for (const off of offs) off();
    expect(runtime.jobs!.list()).toEqual(runtime.jobs!.list().filter((job) => job.ownerId !== s.id));
    expect(runtime.jobs!.list(s.id)).toEqual([]);
    expect(text(await s.callTool('job_list', {}))).toBe('(no background jobs)');
    expect(events.map((event) => event.type)).toEqual(['registered', 'settled', 'removed']);
    const registered = events[0] as Extract<JobEvent, { type: 'registered' }>;
    expect(registered.job).toMatchObject({ kind: 'bash', state: 'running', foreground: true, label: 'echo in time', description: 'run a test command' });
  });
});

describe('without promotion the deadline kills the command', () => {
  const stream = 'for i in 1 2 3; do echo "line $i"; done; sleep 30';

  it.each([
    ['promoteOnTimeout: false', { promoteOnTimeout: false }],
    ['enableRunInBackground: false', { enableRunInBackground: false }],
    ['jobs: false', { jobs: false as const }],
  ])('%s', async (_name, options) => {
    const own = await createRuntime({ executor: { graceMs: 500, threads: 1 }, ...options });
    try {
      const s = fresh(own);
      // Generous: the three lines must be out before the timeout however loaded the host.
      const result = await bash(s, stream, { timeoutMs: 2_000 });
      expect(text(result)).toBe('line 1\nline 2\nline 3\n[timed out after 2000ms]\n[killed by signal: SIGTERM]');
      expect(result.structuredContent).toMatchObject({ kind: 'foreground', timedOut: true, signal: 'SIGTERM', timeoutMs: 2_000 });
      expect(own.jobs?.list() ?? []).toEqual([]);
    } finally {
      await own.close();
    }
  });
});

describe('the hand-off as each face keeps it', () => {
  it('promises no notice where the face delivers none, and says how to wait instead in every text', async () => {
    const s = fresh();
    s.setNotices(false);
    // Generous: `early` must be out before the timeout however loaded the host.
    const result = text(await bash(s, 'echo early; sleep 30', { timeoutMs: 2_000 }));
    const id = /moved to background job (bash-\d+)/.exec(result)![1]!;
    expect(result).toBe(
      `early\n[still running after 2000ms; moved to background job ${id}]\nThe command keeps running in the background. No notice comes when it finishes: wait for it with job_output and wait: true; read newer output with job_output, stop it with job_kill.`,
    );
    const texts = [...s.listTools().map((tool) => tool.description), ...s.promptSections().map((section) => section.text)].join('\n');
    expect(texts).not.toMatch(/notified|you are told when/);
    expect(texts).toContain('no notice comes when a job finishes: wait for one with job_output and wait: true.');
    // The runtime delivers nothing to this session either way; a face that does leaves the default.
    s.setNotices(true);
    expect(s.promptSections().map((section) => section.text).join('\n')).toContain('you are notified when a job finishes');
    await s.callTool('job_kill', { job_id: id });
  });

  it('says a timeoutMs over the cap was capped before handing over at the cap', async () => {
    const capped = await createRuntime({ executor: { maxTimeoutMs: 300 } });
    try {
      const s = capped.session({ id: 'capped', cwd: work });
      const result = text(await bash(s, 'echo early; sleep 30', { timeoutMs: 5000 }));
      const id = /moved to background job (bash-\d+)/.exec(result)![1]!;
      expect(result).toBe(`early\n[timeoutMs capped at 300: 5000 is more than this server allows]\n[still running after 300ms; moved to background job ${id}]\n${HAND_OFF}`);
    } finally {
      await capped.close();
    }
  });
});
