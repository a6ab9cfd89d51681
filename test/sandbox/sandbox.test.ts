// The sandbox end to end, per backend, as root and as an unprivileged user: scenarios.mjs runs in a child process.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { runScenarios as run, users, type Facts } from './harness.js';

const scenarios = join(import.meta.dirname, 'scenarios.mjs');
const runScenarios = (backend: string, user: 'root' | 'unprivileged'): Facts => run(scenarios, backend, user);

type Run = { text: string; isError: boolean; value?: Record<string, any> };

const denied = (run: Run, mode: string) => {
  expect(run.isError).toBe(false);
  expect(run.value?.sandbox).toMatchObject({ mode, denied: true });
  expect(run.text).toContain(`[sandbox: file access denied under ${mode} mode]`);
  expect(run.text).toContain('[sandbox: escalation available — retry this exact command once with sandbox_permissions');
};

describe.each(['landlock', 'bubblewrap'])('sandbox backend %s', (backend) => {
  describe.each(users)('as %s', (user) => {
    const facts = runScenarios(backend, user);

    it('denies writes under read-only and reports the denial', () => {
      denied(facts.readOnlyWrite, 'read-only');
      expect(facts.readOnlyFileExists).toBe(false);
      expect(facts.lsRoot.text).toBe('etc\ndevnull-ok\n');
      expect(facts.lsRoot.value.sandbox).toEqual({ mode: 'read-only', denied: false, enforcement: 'full' });
    });

    it('confines workspace-write to the workspace root and a private TMPDIR', () => {
      expect(facts.inside.text).toBe('in\n');
      denied(facts.sibling, 'workspace-write');
      expect(facts.siblingExists).toBe(false);
      expect(facts.symlink.value.exitCode).not.toBe(0);
      expect(facts.symlinkExists).toBe(false);
      expect(facts.rename.value.exitCode).not.toBe(0);
      expect(facts.renameLanded).toBe(false);
      expect(facts.tmpdir.text).toMatch(/^t\n.*shellring-tmp-.*\n$/);
    });

    it('keeps a double-forked setsid child confined after its parent exits', () => {
      // Both backends give the command a PID namespace of its own, which ends the orphan with the parent, and the
      // result says so (the setsid bash alone, or with its sleep, as far as it got).
      expect(facts.orphan.text).toMatch(
        /^parent-done\n\[(?:1 process left running was|2 processes left running were) ended with the command: in the sandbox nothing outlives its command; run a server as the whole command of a run_in_background call, not with &\]$/,
      );
      expect(facts.orphanGone).toBe(true);
    });

    it('confines background jobs and reports their denial when they settle', () => {
      expect(facts.background.started).toMatch(/^started background job bash-\d+$/);
      expect(facts.background.read).toContain('[sandbox: file access denied under workspace-write mode]');
      expect(facts.background.read).toMatch(/\[status: completed, exit code: 1\]$/);
      expect(facts.background.exists).toBe(false);
    });

    it('leaves the confined shell no capabilities, no remount, no view of the host', () => {
      for (const line of ['CapEff:\t0000000000000000', 'CapPrm:\t0000000000000000']) {
        expect(facts.caps.text).toContain(line);
      }
      expect(facts.mount.text).not.toMatch(/status 0\n/);
      expect(facts.environ.text).toMatch(/^unreadable\n/);
    });

    it('applies the sandbox before BASH_ENV runs', () => {
      expect(facts.bashEnv.text).toContain('child-ran');
      expect(facts.bashEnvExists).toBe(false);
    });

    it('treats a command that imitates a runner failure as an ordinary failure', () => {
      const run = facts.selfFailureLookalike as Run;
      expect(run.isError).toBe(false);
      expect(run.value?.exitCode).toBe(127);
      expect(run.value?.sandbox.runnerFailed).toBeUndefined();
      expect(run.text.endsWith('[exit code: 127]')).toBe(true);
    });

    it('escalates only after approval, and only for that call', () => {
      expect(facts.escalate_rejected.text).toBe('Error: the user rejected escalating this command to "workspace-write"');
      expect(facts.escalate_cancelled.text).toBe('Error: approval for escalating to "workspace-write" was cancelled');
      expect(facts.escalate_unavailable.text).toBe(
        'Error: sandbox escalation to "workspace-write" requires approval, but no approval channel is available',
      );
      for (const outcome of ['rejected', 'cancelled', 'unavailable']) expect(facts[`escalate_${outcome}_exists`]).toBe(false);
      expect(facts.escalateAllowed.text).toBe('(no output)');
      expect(facts.escalateAllowedExists).toBe(true);
      denied(facts.afterGrant, 'read-only');
      expect(facts.approvals).toEqual(Array(4).fill('escalate sandbox to workspace-write: the test needs this file'));
    });

    it('blocks TCP connections when network is denied', () => {
      expect(facts.network_allow.text).toBe('hello\nconnected\n');
      expect(facts.network_deny.text).not.toContain('connected');
      expect(facts.network_deny.value.exitCode).not.toBe(0);
    });

    it('refuses / as a workspace root and fails closed without a working runner', () => {
      expect(facts.rootRefused).toEqual({
        text: 'Error: sandbox workspace root "/" is refused: it would make the whole filesystem writable',
        isError: true,
      });
      expect(facts.brokenRunner.text).toBe(
        'Error: sandbox mode "read-only" is requested but no sandbox backend is usable on this host; refusing to run the command unconfined.',
      );
      expect(facts.brokenRunner.exists).toBe(false);
      expect(facts.noSeccomp.text).toBe(facts.brokenRunner.text);
      expect(facts.noSeccomp.exists).toBe(false);
      expect(facts.missingRunner).toMatch(/no-such-runner is missing or not executable/);
    });

    it('reports a runner failure out of band, never as the command’s own', () => {
      const marker =
        '[sandbox: the sandbox runner itself failed under read-only mode — the command did not run; this is a sandbox problem, not a command failure]';
      expect(facts.runnerFailed.isError).toBe(true);
      const failure = `spawn ${facts.runnerFailed.bwrap}: No such file or directory (os error 2)`;
      expect(facts.runnerFailed.text).toBe(`Error: ${failure}\n${marker}`);
      expect(facts.runnerFailed.deadlineOnly).toEqual({ text: `Error: ${failure}\n${marker}`, isError: true });
      expect(facts.runnerFailed.background).toContain(marker);
      expect(facts.runnerFailed.background).toContain(`[status: failed, ${failure}]`);
    });
  });
});
