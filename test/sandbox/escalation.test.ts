// Nothing escalated outlives what was approved: per backend, as root and as an unprivileged user, a
// danger-full-access escalation's leftover ticker ends with its command in the foreground (and the result says so);
// promoted or started in the background, the escalation covers the job while its command runs, says so, and ends with
// it. The session's own standing mode keeps its leftovers as before.
import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bash, text } from '../helpers/calls.js';
import { runtimes } from '../helpers/runtimes.js';
import { runScenarios, users } from './harness.js';

const open = runtimes();

const script = join(import.meta.dirname, 'escalation.mjs');
const COVERED = (id: string) =>
  `[sandbox: job ${id} runs with the approved danger-full-access escalation until its command ends; what the command leaves running ends with it]`;

describe.each(['landlock', 'bubblewrap'])('one-shot escalations on backend %s', (backend) => {
  describe.each(users)('as %s', (user) => {
    const facts = runScenarios(script, backend, user);

    describe.each(['read-only', 'workspace-write'])('from %s', (mode) => {
      it('foreground: the leftover ticker ends as the call returns, and the result says so', () => {
        const f = facts[`${mode}/foreground`];
        // The ticker's subshell, and its sleep when bash ended in the middle of one.
        const count = f.leftover.count;
        expect([1, 2]).toContain(count);
        const they = count === 1 ? '1 process the command left running was' : '2 processes the command left running were';
        expect(f.text).toBe(`started\n[${they} ended with it: an escalation lasts only as long as its own command]`);
        expect(f.leftover).toEqual({ count, ended: true });
        expect(f.left).toBe(0);
        expect(f.grewAfter).toBe(0);
      });

      it.each(['promoted', 'background'])('%s: the escalation covers the job while its command runs, and ends with it', (shape) => {
        const f = facts[`${mode}/${shape}`];
        expect(f.text.endsWith(`\n${COVERED(f.jobId)}`), f.text).toBe(true);
        expect(f.escalation, "the console's task row").toBe('danger-full-access');
        expect(f.tickedWhileRunning).toBe(true);
        expect(f.read).toMatch(/done\n\[status: completed, exit code: 0\]$/);
        expect(f.left).toBe(0);
        expect(f.grewAfter).toBe(0);
      });
    });

    it("the session's own danger-full-access mode keeps its leftover as a job until the session ends", () => {
      expect(facts.standing.text).toMatch(
        /^started\n\[(1 process|2 processes) left running as background job bash-\d+; (it ends on its|they end on their) own, with job_kill, or when the session closes\]$/,
      );
      expect(facts.standing.left).toBeGreaterThan(0);
      expect(facts.standing.grewAfter).toBeGreaterThan(0);
      expect(facts.standingAfterClose).toBe(0);
    });
  });
});

describe.each(['landlock', 'bubblewrap'] as const)('without a job registry (%s)', (backend) => {
  it("an escalated call's leftover ends with it too, and the result says so", async () => {
    const runtime = await open({ sandbox: { mode: 'read-only', backend }, jobs: false, approval: { policy: 'ask', request: async () => 'allowed-once' } });
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-escalation-')));
    const tick = join(dir, 'tick');
    const result = await bash(runtime.session({ id: 'no-jobs', cwd: dir }), `(while true; do echo tick >> ${tick}; sleep 0.2; done) & sleep 0.5; echo started`, {
      sandbox_permissions: 'danger-full-access',
      justification: 'writes outside the workspace',
    });
    expect(text(result)).toMatch(/^started\n\[(1 process|2 processes) the command left running (was|were) ended with it: an escalation lasts only as long as its own command\]$/);
    const size = existsSync(tick) ? readFileSync(tick).length : 0;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(readFileSync(tick).length).toBe(size);
  });
});
