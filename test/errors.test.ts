// One error type: what the library throws is a ShellringError with a code from its union, and keeps the original.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRuntime, isShellringError, LocalExecutor, ShellringError } from '../src/index.js';
import { checkRunner } from '../src/native/assets.js';
import { Sandbox } from '../src/sandbox/sandbox.js';
import { JobRegistry } from '../src/jobs/registry.js';
import { referenceBackend } from './capture/reference/index.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-errors-')));

function caught(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('ShellringError', () => {
  it('is what invalid options, requests and closed parts throw, each with its code', async () => {
    await expect(createRuntime({ jobs: { readBytes: 0 } })).rejects.toSatisfy((error) =>
      isShellringError(error, 'SHELLRING_INVALID_CONFIG'),
    );
    const executor = new LocalExecutor({ threads: 1 });
    const request = caught(() => executor.resolve({ command: ' ' }));
    expect(request).toBeInstanceOf(ShellringError);
    expect(request).toMatchObject({ code: 'SHELLRING_INVALID_REQUEST', message: 'invalid command: expected a non-empty string' });
    await executor.close();
    expect(caught(() => executor.start(executor.resolve({ command: 'true' })))).toMatchObject({ code: 'SHELLRING_CLOSED' });
    const jobs = caught(() => new JobRegistry(referenceBackend, { readBytes: 0 }));
    expect(jobs).toMatchObject({ code: 'SHELLRING_INVALID_CONFIG', message: expect.stringMatching(/^invalid job options: readBytes: /) });
    expect((jobs as ShellringError).cause).toBeDefined();
  });

  it('carries job errors and tool refusals with their codes; the model still reads only the message', async () => {
    const runtime = await createRuntime({ executor: { threads: 1 } });
    try {
      const s = runtime.session({ id: 'errors', cwd: work });
      expect(caught(() => runtime.jobs!.kill('bash-0'))).toMatchObject({ code: 'SHELLRING_UNKNOWN_JOB', message: 'unknown job bash-0' });
      const refused = await s.callTool('job_output', { job_id: 'bash-0' });
      expect(refused).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Error: unknown job bash-0' }] });
    } finally {
      await runtime.close();
    }
    expect(caught(() => runtime.session({ id: 'late' }))).toMatchObject({ code: 'SHELLRING_CLOSED' });
  });

  it('keeps the original failure as cause', () => {
    const error = caught(() => checkRunner(join(work, 'no-such-runner')));
    expect(isShellringError(error, 'SHELLRING_RUNNER_MISSING')).toBe(true);
    expect((error as ShellringError).cause).toMatchObject({ code: 'ENOENT' });
  });

  it('keeps the contract spelling SANDBOX_UNAVAILABLE when no backend can confine', async () => {
    const sandbox = new Sandbox({ mode: 'read-only', backend: 'landlock', network: 'allow', allowUnixSockets: false, bwrapPath: 'bwrap' }, '/nonexistent/runner', []);
    const error = await sandbox.confine('read-only', work, 'errors').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShellringError);
    expect(error).toMatchObject({
      code: 'SANDBOX_UNAVAILABLE',
      message: 'sandbox mode "read-only" is requested but no sandbox backend is usable on this host; refusing to run the command unconfined.',
    });
  });
});
