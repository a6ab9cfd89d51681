// Every error the bash tool and the job tools can give in this composition, byte for byte, and that nothing runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type Runtime, type Session } from '../../src/index.js';
import { text } from '../helpers/calls.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-errors-')));
let runtime: Runtime;
let noBackground: Runtime;
let noJobs: Runtime;
let noPromotion: Runtime;
let session: Session;

beforeAll(async () => {
  runtime = await createRuntime({ executor: { graceMs: 500 } });
  noBackground = await createRuntime({ executor: { threads: 1 }, enableRunInBackground: false });
  noJobs = await createRuntime({ executor: { threads: 1 }, jobs: false });
  noPromotion = await createRuntime({ executor: { threads: 1 }, promoteOnTimeout: false });
  session = runtime.session({ id: 'errors', cwd: work });
});

afterAll(async () => {
  await Promise.all([runtime, noBackground, noJobs, noPromotion].map((r) => r?.close()));
});

let serial = 0;
/** A command whose only effect is creating a fresh file, so a test can tell whether it ran. */
function sideEffect(): { command: string; ran: () => boolean } {
  const file = join(work, `ran-${++serial}`);
  return { command: `touch ${file}`, ran: () => existsSync(file) };
}

async function expectError(s: Session, args: Record<string, unknown>, message: string): Promise<void> {
  const result = await s.callTool('bash', args);
  expect(result.isError).toBe(true);
  expect(text(result)).toBe(`Error: ${message}`);
  expect(result.structuredContent).toBeUndefined();
}

describe('argument validation (nothing runs)', () => {
  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['blank', ' \n\t '],
    ['not a string', 42],
    ['null', null],
  ])('command %s', async (_name, command) => {
    await expectError(session, { command, description: 'Run something' }, 'invalid command: expected a non-empty string');
  });

  it('arguments that are not an object are refused as such', async () => {
    expect(text(await session.callTool('bash', 'echo hi'))).toBe('Error: invalid arguments: expected an object, got a string');
    expect(text(await session.callTool('bash', null))).toBe('Error: invalid arguments: expected an object, got null');
    expect(text(await session.callTool('bash', ['echo hi']))).toBe('Error: invalid arguments: expected an object, got an array');
    expect(text(await session.callTool('job_list', 7))).toBe('Error: invalid arguments: expected an object, got a number');
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['blank', '   '],
    ['not a string', 7],
  ])('description %s', async (_name, description) => {
    const probe = sideEffect();
    await expectError(session, { command: probe.command, description }, 'invalid description: expected a non-empty string');
    expect(probe.ran()).toBe(false);
  });

  it.each([
    [0, '0'],
    [-5, '-5'],
    ['100', '"100"'],
    [null, 'null'],
    [true, 'true'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    [Number.NEGATIVE_INFINITY, '-Infinity'],
    [Number.NaN, 'NaN'],
    [{ ms: 5 }, '{"ms":5}'],
  ])('timeoutMs %j', async (timeoutMs, shown) => {
    const probe = sideEffect();
    await expectError(
      session,
      { command: probe.command, description: 'Touch a file', timeoutMs },
      `invalid timeoutMs: expected a positive number, got ${shown}`,
    );
    expect(probe.ran()).toBe(false);
  });
});

describe('arguments never reach prototypes', () => {
  it('a JSON __proto__ key cannot switch on run_in_background', async () => {
    const { command, ran } = sideEffect();
    const input = JSON.parse(`{"command": ${JSON.stringify(command)}, "description": "Run with a prototype key", "__proto__": {"run_in_background": true, "timeoutMs": -1}}`);
    const result = await noJobs.session({ id: 'proto', cwd: work }).callTool('bash', input);
    // Applied, the key would ask a registry-less runtime for a background job and fail with its error.
    expect(result.isError).not.toBe(true);
    expect(text(result)).toBe('(no output)');
    expect(result.structuredContent).toMatchObject({ kind: 'foreground', exitCode: 0 });
    expect(ran()).toBe(true);
    expect(({} as Record<string, unknown>).run_in_background).toBeUndefined();
  });

  it('constructor and prototype keys are ignored, never forwarded', async () => {
    const input = JSON.parse('{"command": "echo ok", "description": "Run with odd keys", "constructor": {"prototype": {"x": 1}}, "prototype": {"timeoutMs": 1}}');
    const result = await session.callTool('bash', input);
    expect(text(result)).toBe('ok\n');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('a job tool ignores a __proto__ key', async () => {
    const result = await session.callTool('job_output', JSON.parse('{"__proto__": {"job_id": "bash-1"}}'));
    expect(text(result)).toBe("Error: missing job_id: pass the id of one of this session's background jobs (job_list lists them)");
  });

  it('a NUL byte in the command or workdir is a clear error, and nothing runs', async () => {
    const { command, ran } = sideEffect();
    await expectError(session, { command: `${command}\0; echo more`, description: 'Run with a NUL byte' },
      'invalid command: contains a NUL byte, which no shell command can hold');
    await expectError(session, { command, description: 'Run in a NUL workdir', workdir: 'sub\0dir' },
      'invalid workdir: contains a NUL byte, which no path can hold');
    expect(ran()).toBe(false);
  });
});

describe('escalation arguments without a sandboxing executor', () => {
  it('a non-blank justification without sandbox_permissions is refused', async () => {
    const probe = sideEffect();
    await expectError(
      session,
      { command: probe.command, description: 'Touch a file', justification: 'I need to write the file' },
      'invalid escalation: justification is only valid together with sandbox_permissions',
    );
    expect(probe.ran()).toBe(false);
  });

  it.each([[''], ['   '], ['\n']])('an empty or blank justification without a mode is ignored (%j)', async (justification) => {
    const result = await session.callTool('bash', { command: 'echo ran', description: 'Echo a word', justification });
    expect(result.isError).toBeUndefined();
    expect(text(result)).toBe('ran\n');
  });

  it('sandbox_permissions with a justification: not available in this composition', async () => {
    const probe = sideEffect();
    await expectError(
      session,
      { command: probe.command, description: 'Touch a file', sandbox_permissions: 'workspace-write', justification: 'It writes the build output' },
      'sandbox_permissions is not available in this composition (no sandboxing executor to escalate)',
    );
    expect(probe.ran()).toBe(false);
    await expectError(
      session,
      { command: 'true', description: 'Do nothing', sandbox_permissions: 'danger-full-access', justification: 'Installs a system package' },
      'sandbox_permissions is not available in this composition (no sandboxing executor to escalate)',
    );
  });

  it('sandbox_permissions without a justification: the pairing error', async () => {
    const probe = sideEffect();
    await expectError(
      session,
      { command: probe.command, description: 'Touch a file', sandbox_permissions: 'workspace-write' },
      'invalid escalation: sandbox_permissions requires a justification',
    );
    expect(probe.ran()).toBe(false);
  });

  it('sandbox_permissions with a blank justification: not a sentence', async () => {
    await expectError(
      session,
      { command: 'true', description: 'Do nothing', sandbox_permissions: 'workspace-write', justification: '   ' },
      'invalid justification: expected a non-empty sentence',
    );
  });
});

describe('background policy', () => {
  it('enableRunInBackground: false rejects a forced background call', async () => {
    const s = noBackground.session({ id: 'no-background', cwd: work });
    const probe = sideEffect();
    await expectError(
      s,
      { command: probe.command, description: 'Touch a file', run_in_background: true },
      'run_in_background is disabled for this deployment (enableRunInBackground: false)',
    );
    expect(probe.ran()).toBe(false);
    // Asking for the foreground explicitly is no error.
    expect(text(await s.callTool('bash', { command: 'echo fg', description: 'Echo a word', run_in_background: false }))).toBe('fg\n');
  });

  it('jobs: false makes background jobs unavailable', async () => {
    const s = noJobs.session({ id: 'no-jobs', cwd: work });
    const probe = sideEffect();
    await expectError(
      s,
      { command: probe.command, description: 'Touch a file', run_in_background: true },
      'background jobs unavailable: this runtime has no job registry (enable jobs, or load the jobsLocal and toolJobs plugins)',
    );
    expect(probe.ran()).toBe(false);
    expect(noJobs.jobs).toBeUndefined();
    for (const tool of ['job_output', 'job_list', 'job_kill']) {
      expect(text(await s.callTool(tool, { job_id: 'bash-1' }))).toBe(`Error: unknown tool "${tool}"`);
    }
  });
});

describe('infrastructure errors', () => {
  it('a call whose signal is already aborted does not run', async () => {
    const probe = sideEffect();
    const controller = new AbortController();
    controller.abort();
    const result = await session.callTool('bash', { command: probe.command, description: 'Touch a file' }, { signal: controller.signal });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('Error: tool call aborted');
    expect(probe.ran()).toBe(false);
  });

  it.each([
    ['with a job registry', () => session],
    ['under the deadline', () => noPromotion.session({ id: 'no-promotion', cwd: work })],
  ])('a missing workdir is an error with the OS text (%s)', async (_name, get) => {
    const missing = join(work, 'does-not-exist');
    const result = await get().callTool('bash', { command: 'pwd', description: 'Print the directory', workdir: missing });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(`Error: ENOENT: no such file or directory, chdir '${missing}'`);
  });

  it('a workdir that is a file is an error with the OS text', async () => {
    const file = join(work, 'a-file');
    writeFileSync(file, '');
    const result = await session.callTool('bash', { command: 'pwd', description: 'Print the directory', workdir: 'a-file' });
    expect(text(result)).toBe(`Error: ENOTDIR: not a directory, chdir '${file}'`);
  });

  it('a failing background start is a failed job, not a failed call', async () => {
    const missing = join(work, 'gone');
    const started = await session.callTool('bash', { command: 'pwd', description: 'Print the directory', workdir: missing, run_in_background: true });
    expect(text(started)).toMatch(/^started background job bash-\d+$/);
    const id = text(started).slice('started background job '.length);
    const output = await session.callTool('job_output', { job_id: id, wait: true, timeout_ms: 5_000 });
    const failure = `ENOENT: no such file or directory, chdir '${missing}'`;
    expect(text(output)).toBe(`[stderr]\n${failure}\n[status: failed, ${failure}]`);
  });

  it('unknown tools and closed sessions', async () => {
    expect(text(await session.callTool('nope', {}))).toBe('Error: unknown tool "nope"');
    const s = runtime.session({ id: 'closing', cwd: work });
    await s.close();
    const result = await s.callTool('bash', { command: 'true', description: 'Do nothing' });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('Error: session closing is closed');
  });
});

describe('job tool errors', () => {
  it.each(['job_output', 'job_kill'])('%s: empty, blank and missing ids', async (tool) => {
    expect(text(await session.callTool(tool, { job_id: '' }))).toBe('Error: invalid job_id: expected a non-empty string, got ""');
    expect(text(await session.callTool(tool, {}))).toBe(
      "Error: missing job_id: pass the id of one of this session's background jobs (job_list lists them)",
    );
    expect(text(await session.callTool(tool, { job_id: null }))).toBe('Error: invalid job_id: expected a non-empty string, got null');
    expect(text(await session.callTool(tool, { job_id: '  ' }))).toBe('Error: invalid job_id: expected a non-empty string, got "  "');
    const result = await session.callTool(tool, { job_id: '' });
    expect(result.isError).toBe(true);
  });

  it.each(['job_output', 'job_kill'])('%s: unknown ids', async (tool) => {
    const result = await session.callTool(tool, { job_id: 'bash-999999' });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('Error: unknown job bash-999999');
    expect(text(await session.callTool(tool, { job_id: 'nope' }))).toBe('Error: unknown job nope');
  });

  it('job_output: a bad timeout_ms', async () => {
    expect(text(await session.callTool('job_output', { job_id: 'bash-1', wait: true, timeout_ms: 0 }))).toBe(
      'Error: invalid timeout_ms: expected a positive number, got 0',
    );
    expect(text(await session.callTool('job_output', { job_id: 'bash-1', wait: true, timeout_ms: Number.NaN }))).toBe(
      'Error: invalid timeout_ms: expected a positive number, got NaN',
    );
  });

  it('bash: a command over the kernel\'s one-argument limit (MAX_ARG_STRLEN) runs anyway, reading /dev/null', async () => {
    // 1 MB of script: every line runs, $0 and the exit status are bash's own, stdin is empty.
    const lines = Array.from({ length: 20_000 }, (_, i) => `x=$((x + ${i})) # ${'p'.repeat(32)}`);
    const command = `x=0\n${lines.join('\n')}\necho "sum $x, $0, stdin $(wc -c)"; exit 4`;
    expect(Buffer.byteLength(command)).toBeGreaterThan(131_072 * 5);
    const result = await session.callTool('bash', { command, description: 'Run a long script' });
    expect(text(result)).toBe(`sum ${(20_000 * 19_999) / 2}, bash, stdin 0\n[exit code: 4]`);
    // One byte under the limit still goes as bash's argument.
    const fits = `echo fits #${'x'.repeat(131_071 - 'echo fits #'.length)}`;
    expect(Buffer.byteLength(fits)).toBe(131_071);
    expect(text(await session.callTool('bash', { command: fits, description: 'Run a long command' }))).toBe('fits\n');
  });

  it('executor: a long command that brings stdin of its own is refused naming the limit; nothing runs', async () => {
    const probe = sideEffect();
    const command = `${probe.command} # ${'x'.repeat(131_072)}`;
    expect(() => runtime.executor.resolve({ command, stdin: 'input' })).toThrow(
      `invalid command: ${Buffer.byteLength(command)} bytes is over the 131071-byte limit Linux sets on one argument (MAX_ARG_STRLEN), and a command that long reaches bash on its stdin, which this request's stdin already fills; nothing ran. Shorten the command (write the script to a file and run it with bash <file>) or pass the input another way`,
    );
    expect(probe.ran()).toBe(false);
  });
});
