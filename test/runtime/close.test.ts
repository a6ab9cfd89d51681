// Teardown: session.close() and runtime.close() leave no process behind (checked in /proc), and send no notices.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type Runtime, type Session } from '../../src/index.js';
import { background, bash, collectNotices, jobIdOf, text, until, watchJobs } from '../helpers/calls.js';
import { processesWith } from '../helpers/processes.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-close-')));

/** Waits until `count` processes carry the marker: the runner carries the command line too, and so does bash
 * unless it execs a lone command. */
const running = (marker: string, count: number) => until(() => processesWith(marker).length >= count, 5_000, marker);

describe('session.close()', () => {
  it('kills its background, promoted and in-flight commands, with their descendants, and only its own', async () => {
    const runtime = await createRuntime({ executor: { graceMs: 500 } });
    try {
      const heard = collectNotices(runtime);
      const jobs = watchJobs(runtime);
      const s = runtime.session({ id: 'closing', cwd: work });
      const other = runtime.session({ id: 'staying', cwd: work });
      await background(s, 'sleep 1234.61');
      await background(s, 'sleep 1234.62 & sleep 1234.62; wait');
      const promoted = await bash(s, 'sleep 1234.63', { timeoutMs: 100 });
      expect(text(promoted)).toContain(`moved to background job ${jobIdOf(promoted)}`);
      // A descendant that left bash's process group.
      await background(s, 'setsid sleep 1234.64 & wait');
      const inFlight = bash(s, 'sleep 1234.65');
      const kept = await background(other, 'sleep 1234.66');
      await Promise.all(
        [['1234.61', 2], ['1234.62', 4], ['1234.63', 2], ['1234.64', 3], ['1234.65', 2], ['1234.66', 2]].map(([marker, count]) =>
          running(marker as string, count as number),
        ),
      );

      await s.close();
      expect(s.closed).toBe(true);
      for (const marker of ['1234.61', '1234.62', '1234.63', '1234.64', '1234.65']) {
        expect(processesWith(marker), marker).toEqual([]);
      }
      const settled = await inFlight;
      expect(text(settled)).not.toMatch(/unknown capture|^Error/);
      expect(text(settled).endsWith('[killed by signal: SIGTERM]')).toBe(true);
      expect(runtime.jobs!.list(s.id)).toEqual([]);
      // The other session's job runs on.
      expect(processesWith('1234.66').length).toBeGreaterThan(0);
      expect(runtime.jobs!.list(other.id)).toMatchObject([{ id: kept, state: 'running' }]);
      await jobs.settled((job) => job.ownerId === s.id);
      expect(heard).toEqual([]);
      expect(text(await s.callTool('bash', { command: 'true', description: 'Do nothing' }))).toBe('Error: session closing is closed');
    } finally {
      await runtime.close();
    }
    expect(processesWith('1234.66')).toEqual([]);
  });
});

describe('a foreground call in flight at teardown', () => {
  it.each([
    ['session.close()', 'sleep 1234.81 & sleep 1234.81; wait', (_runtime: Runtime, s: Session) => s.close()],
    ['runtime.close()', 'sleep 1234.82 & sleep 1234.82; wait', (runtime: Runtime) => runtime.close()],
  ])('gets a result, not an internal error (%s)', async (_name, command, teardown) => {
    const runtime = await createRuntime({ executor: { graceMs: 500, threads: 1 } });
    try {
      const s = runtime.session({ id: 'in-flight', cwd: work });
      const call = bash(s, command);
      const marker = command.split(' ')[1]!;
      await running(marker, 4);
      await teardown(runtime, s);
      const result = await call;
      expect(result.isError).toBeUndefined();
      expect(text(result)).toBe('(no output)\n[stopped: session closed]\n[killed by signal: SIGTERM]');
      expect(processesWith(marker)).toEqual([]);
    } finally {
      await runtime.close();
    }
  });
});

describe('runtime.close()', () => {
  it('kills every session’s commands and leaves no process', async () => {
    const runtime = await createRuntime({ executor: { graceMs: 500 } });
    const heard = collectNotices(runtime);
    const a = runtime.session({ id: 'a', cwd: work });
    const b = runtime.session({ id: 'b', cwd: work });
    await background(a, 'sleep 1234.71');
    await background(b, 'sleep 1234.72 & sleep 1234.72; wait');
    await background(b, 'setsid sleep 1234.73 & wait');
    await bash(a, 'sleep 1234.74', { timeoutMs: 100 });
    const inFlight = bash(b, "trap '' TERM; sleep 1234.75");
    await Promise.all([running('1234.71', 2), running('1234.72', 4), running('1234.73', 3), running('1234.74', 2), running('1234.75', 2)]);

    await runtime.close();
    for (const marker of ['1234.71', '1234.72', '1234.73', '1234.74', '1234.75']) {
      expect(processesWith(marker), marker).toEqual([]);
    }
    const settled = await inFlight;
    expect(text(settled)).not.toMatch(/unknown capture|^Error/);
    expect(heard).toEqual([]);
    expect(() => runtime.session({ id: 'late' })).toThrow('the runtime is closed');
    await runtime.close();
  });

  it('a runtime closed with nothing running closes at once', async () => {
    const runtime = await createRuntime({ executor: { threads: 1 } });
    const started = Date.now();
    await runtime.close();
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
