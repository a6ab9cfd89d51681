// No hidden cap: more than 512 live background jobs across sessions all really run, another session's call still
// starts at once, a kill of the last job settles it, and close leaves no process (checked in /proc).
import { describe, expect, it } from 'vitest';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from '../../src/index.js';
import { background, bash, settledJob, text, until } from '../helpers/calls.js';
import { processesWith } from '../helpers/processes.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-many-jobs-')));
const SESSIONS = 60;
const PER_SESSION = 10;
const GRACE_MS = 500;
const SERVED_WITHIN_MS = 10_000;

describe('600 live background jobs over 60 sessions', () => {
  it('all run, another session is served, a kill settles, and close leaves nothing', async () => {
    const runtime = await createRuntime({ executor: { graceMs: GRACE_MS } });
    try {
      const sessions = Array.from({ length: SESSIONS }, (_, i) => runtime.session({ id: `load-${i}`, cwd: work }));
      const jobs: string[][] = [];
      for (const s of sessions) {
        jobs.push(await Promise.all(Array.from({ length: PER_SESSION }, () => background(s, 'exec sleep 1236.11'))));
      }
      // Every job really runs: its runner and its sleep are in the process table.
      await until(() => processesWith('1236.11').length >= 2 * SESSIONS * PER_SESSION, 60_000, 'every job running');
      expect(runtime.jobs!.list().filter((job) => job.state === 'running')).toHaveLength(SESSIONS * PER_SESSION);

      // A session with nothing running is served at once, whatever the others hold.
      // Generous for a loaded machine; a call queued behind the jobs would wait for their 1236 s.
      const other = runtime.session({ id: 'quiet', cwd: work });
      const asked = Date.now();
      expect(text(await bash(other, 'echo served'))).toBe('served\n');
      expect(Date.now() - asked).toBeLessThan(SERVED_WITHIN_MS);

      // The last job started is killed and settles.
      const last = jobs.at(-1)!.at(-1)!;
      const owner = sessions.at(-1)!;
      expect(text(await owner.callTool('job_kill', { job_id: last }))).toContain(last);
      await settledJob(runtime, last, 10_000);
      expect(runtime.jobs!.list(owner.id).find((job) => job.id === last)?.state).toBe('killed');

      const started = Date.now();
      await runtime.close();
      console.log(`closed ${SESSIONS * PER_SESSION - 1} live jobs in ${Date.now() - started} ms`);
      expect(processesWith('1236.11')).toEqual([]);
    } finally {
      await runtime.close();
    }
  }, 180_000);
});
