// A background call is admitted before its command is prepared: the id comes back while the sandbox probe is
// still pending, and a preparation failure, a kill or a session close settles that job without starting anything.
import { afterAll, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApprovalOutcome, ApprovalRequest, Session } from '../../src/index.js';
import { runnerPath } from '../../src/native/assets.js';
import { bash, collectNotices, jobIdOf, text, until, watchJobs } from '../helpers/calls.js';
import { runtimes } from '../helpers/runtimes.js';

const open = runtimes();
const base = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-admission-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const unusable = (mode: string) =>
  `sandbox mode "${mode}" is requested but no sandbox backend is usable on this host; refusing to run the command unconfined.`;

let serial = 0;

/**
 * A runner whose `--probe` answers `report` only once the test opens its gate, and which is the real runner
 * otherwise: the preparation is observably pending. Whether a command ran shows in the file it writes first.
 */
function gatedRunner(report: { landlockAbi: number; seccomp: boolean }) {
  // A directory of its own: no workspace may lie inside the runner's directory.
  const dir = join(base, `runner-${++serial}`);
  const file = join(dir, 'runner.sh');
  mkdirSync(dir);
  writeFileSync(
    file,
    [
      '#!/bin/sh',
      'if [ "$1" = --probe ]; then',
      `  : > '${dir}/probing'`,
      `  while [ ! -e '${dir}/gate' ]; do sleep 0.02; done`,
      `  echo '${JSON.stringify(report)}'`,
      '  exit 0',
      'fi',
      `exec '${runnerPath()}' "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(file, 0o755);
  return {
    path: file,
    probing: () => existsSync(join(dir, 'probing')),
    openGate: () => writeFileSync(join(dir, 'gate'), ''),
  };
}

function workspace(): string {
  return realpathSync(mkdtempSync(join(base, 'ws-')));
}

async function startBackground(session: Session, command: string, extra: Record<string, unknown> = {}): Promise<string> {
  const result = await bash(session, command, { run_in_background: true, ...extra });
  expect(result.isError).toBeFalsy();
  const id = jobIdOf(result);
  expect(text(result)).toBe(`started background job ${id}`);
  expect(result.structuredContent).toEqual({ kind: 'background', jobId: id });
  return id;
}

describe('run_in_background admits the job before its command is prepared', () => {
  it('returns the id while the sandbox probe is pending; an unusable backend then settles the job as failed', async () => {
    const runner = gatedRunner({ landlockAbi: 7, seccomp: false });
    const runtime = await open({ sandbox: { mode: 'read-only', backend: 'landlock' }, executor: { runnerPath: runner.path } });
    const notices = collectNotices(runtime);
    const jobs = watchJobs(runtime);
    const ws = workspace();
    const session = runtime.session({ id: 'pending-probe', cwd: ws });
    const command = `echo ran > ${ws}/ran.txt`;

    const id = await startBackground(session, command);
    // The call has returned; the probe has started and still waits for the gate.
    await until(runner.probing, 30_000, 'the probe to start');
    expect(text(await session.callTool('job_list', {}))).toBe(`${id} [bash] running — ${command}`);

    runner.openGate();
    await jobs.settled((job) => job.id === id);
    const failure = unusable('read-only');
    expect(notices.filter((notice) => notice.jobId === id)).toEqual([
      {
        sessionId: 'pending-probe',
        jobId: id,
        text: `background job ${id} (bash: ${command}) finished [status: failed, ${failure}]. Read its output with job_output.`,
      },
    ]);
    expect(text(await session.callTool('job_list', {}))).toBe(`${id} [bash] failed — ${command}`);
    expect(text(await session.callTool('job_output', { job_id: id }))).toBe(`[stderr]\n${failure}\n[status: failed, ${failure}]`);
    expect(existsSync(join(ws, 'ran.txt'))).toBe(false);

    // The foreground path is unchanged: the same failure refuses the call, and no job exists for it.
    const foreground = await bash(session, command);
    expect(foreground.isError).toBe(true);
    expect(text(foreground)).toBe(`Error: ${failure}`);
    expect(runtime.jobs!.list('pending-probe').map((job) => job.id)).toEqual([id]);
  });

  it('settles as failed when the configured bubblewrap does not exist; a foreground call is refused', async () => {
    const runtime = await open({ sandbox: { mode: 'workspace-write', backend: 'bubblewrap', bwrapPath: join(base, 'no-such-bwrap') } });
    const notices = collectNotices(runtime);
    const jobs = watchJobs(runtime);
    const ws = workspace();
    const session = runtime.session({ id: 'no-bwrap', cwd: ws });
    const command = `echo ran > ${ws}/ran.txt`;

    const id = await startBackground(session, command);
    await jobs.settled((job) => job.id === id);
    const failure = unusable('workspace-write');
    expect(notices.map((notice) => notice.text)).toEqual([
      `background job ${id} (bash: ${command}) finished [status: failed, ${failure}]. Read its output with job_output.`,
    ]);
    expect(text(await session.callTool('job_list', {}))).toBe(`${id} [bash] failed — ${command}`);
    const output = await session.callTool('job_output', { job_id: id });
    expect(text(output)).toBe(`[stderr]\n${failure}\n[status: failed, ${failure}]`);
    expect(output.isError).toBeFalsy();
    expect(existsSync(join(ws, 'ran.txt'))).toBe(false);

    const foreground = await bash(session, command);
    expect(text(foreground)).toBe(`Error: ${failure}`);
    expect(foreground.isError).toBe(true);
  });

  it('a job killed while it is prepared settles as killed, and its command never starts', async () => {
    const runner = gatedRunner({ landlockAbi: 7, seccomp: true });
    const runtime = await open({ sandbox: { mode: 'workspace-write', backend: 'landlock' }, executor: { runnerPath: runner.path } });
    const notices = collectNotices(runtime);
    const jobs = watchJobs(runtime);
    const ws = workspace();
    const session = runtime.session({ id: 'kill-early', cwd: ws });
    const command = 'echo killed-early > killed.txt';

    const id = await startBackground(session, command);
    await until(runner.probing, 30_000, 'the probe to start');
    expect(text(await session.callTool('job_kill', { job_id: id }))).toBe(`requested cancellation of job ${id}`);
    await jobs.settled((job) => job.id === id);
    expect(text(await session.callTool('job_list', {}))).toBe(`${id} [bash] killed — ${command}`);
    expect(text(await session.callTool('job_output', { job_id: id }))).toBe('(no new output)\n[status: killed, killed before exit]');

    // The probe answers now, and the backend works: a later command of the session runs, the killed one never does.
    runner.openGate();
    const later = await startBackground(session, 'echo later > later.txt; echo later');
    expect(text(await session.callTool('job_output', { job_id: later, wait: true }))).toBe('later\n[status: completed, exit code: 0]');
    expect(readFileSync(join(ws, 'later.txt'), 'utf8')).toBe('later\n');
    expect(existsSync(join(ws, 'killed.txt'))).toBe(false);
    // The owner's own kill sends no notice.
    expect(notices.filter((notice) => notice.jobId === id)).toEqual([]);
  });

  it('a session closed while its job is prepared ends the job, and its command never starts', async () => {
    const runner = gatedRunner({ landlockAbi: 7, seccomp: true });
    const runtime = await open({ sandbox: { mode: 'workspace-write', backend: 'landlock' }, executor: { runnerPath: runner.path } });
    const ws = workspace();
    const closing = runtime.session({ id: 'close-early', cwd: ws });
    const id = await startBackground(closing, 'echo closed-early > closed.txt');
    await until(runner.probing, 30_000, 'the probe to start');
    expect(runtime.jobs!.list('close-early').map((job) => [job.id, job.state])).toEqual([[id, 'running']]);
    await closing.close();
    expect(runtime.jobs!.list('close-early')).toEqual([]);

    runner.openGate();
    const other = runtime.session({ id: 'still-open', cwd: ws });
    const later = await startBackground(other, 'echo later');
    expect(text(await other.callTool('job_output', { job_id: later, wait: true }))).toBe('later\n[status: completed, exit code: 0]');
    expect(existsSync(join(ws, 'closed.txt'))).toBe(false);
  });
});

describe('escalating a background call', () => {
  const escalate = { sandbox_permissions: 'workspace-write', justification: 'the job writes its report here' };

  it('asks the person before the job is admitted; an approved job runs in the wider mode', async () => {
    let answer!: (outcome: ApprovalOutcome) => void;
    const requests: ApprovalRequest[] = [];
    const runtime = await open({
      sandbox: { mode: 'read-only', backend: 'landlock' },
      approval: {
        request: (request) => {
          requests.push(request);
          return new Promise<ApprovalOutcome>((resolve) => (answer = resolve));
        },
      },
    });
    const ws = workspace();
    const session = runtime.session({ id: 'escalate-bg', cwd: ws });
    const call = bash(session, 'echo report > report.txt; echo written', { run_in_background: true, ...escalate });
    await until(() => requests.length === 1, 30_000, 'the approval request');
    // The person decides on the call itself: until then, no job exists.
    expect(runtime.jobs!.list('escalate-bg')).toEqual([]);
    expect(requests[0]).toMatchObject({ mode: 'workspace-write', cwd: ws, reason: 'escalate sandbox to workspace-write: the job writes its report here' });
    answer('allowed-once');
    const id = jobIdOf(await call);
    expect(text(await session.callTool('job_output', { job_id: id, wait: true }))).toBe('written\n[status: completed, exit code: 0]');
    expect(readFileSync(join(ws, 'report.txt'), 'utf8')).toBe('report\n');

    answer = () => undefined;
    const rejected = bash(session, 'echo no > rejected.txt', { run_in_background: true, ...escalate });
    await until(() => requests.length === 2, 30_000, 'the second approval request');
    answer('rejected');
    expect(text(await rejected)).toBe('Error: the user rejected escalating this command to "workspace-write"');
    expect(runtime.jobs!.list('escalate-bg').map((job) => job.id)).toEqual([id]);
    expect(existsSync(join(ws, 'rejected.txt'))).toBe(false);
  });

  it('is refused at the job limit without asking anyone', async () => {
    const requests: ApprovalRequest[] = [];
    const runtime = await open({
      sandbox: { mode: 'read-only', backend: 'landlock' },
      jobs: { maxJobsPerOwner: 1 },
      approval: {
        request: async (request) => {
          requests.push(request);
          return 'allowed-once';
        },
      },
    });
    const session = runtime.session({ id: 'escalate-limit', cwd: workspace() });
    const running = await startBackground(session, 'sleep 30');
    const refused = await bash(session, 'echo x > x.txt', { run_in_background: true, ...escalate });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe(
      'Error: background job limit reached for this owner (limit: 1); use job_kill to stop an unneeded job, wait for it to finish, then retry',
    );
    expect(requests).toEqual([]);
    await session.callTool('job_kill', { job_id: running });
  });
});
