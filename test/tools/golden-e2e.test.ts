// The goldens end to end: real bash through session.callTool produces exactly the texts of golden.json.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type Runtime, type Session } from '../../src/index.js';
import { bash, text, until } from '../helpers/calls.js';
import { golden } from './golden.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-golden-')));
let main: Runtime;
let deadline: Runtime;
let tiny: Runtime;
let tinySpill: Runtime;
let session: Session;

beforeAll(async () => {
  // A command's TERM handler must be done within the grace however loaded the host: 2 s.
  main = await createRuntime({ executor: { graceMs: 2_000 } });
  // Promotion off: a command at its timeout is killed by the executor's deadline.
  deadline = await createRuntime({ executor: { graceMs: 2_000, threads: 1 }, promoteOnTimeout: false });
  // Tiny tails; spill capped at 0 bytes so it can never complete, or left at its default.
  tiny = await createRuntime({ executor: { maxOutputBytes: 4, maxSpillBytes: 0, threads: 1 } });
  tinySpill = await createRuntime({ executor: { maxOutputBytes: 5, threads: 1 } });
  session = main.session({ id: 'golden', cwd: work });
});

afterAll(async () => {
  await Promise.all([main, deadline, tiny, tinySpill].map((runtime) => runtime?.close()));
});

describe('goldens produced by real commands', () => {
  it.each([
    ['clean stdout is returned verbatim', 'echo out'],
    ['clean stdout without a final newline gets none added', "printf 'no newline'"],
    ['stderr section after newline-terminated stdout', 'echo out; echo err >&2'],
    ['stderr section after unterminated stdout starts on a new line', 'printf out; printf err >&2'],
    ['stderr only: the section opens the body', 'echo err >&2'],
    ['non-zero exit code marker', 'echo failing; exit 3'],
    ['exit code marker after unterminated stdout', 'printf failing; exit 3'],
    ['exit code marker after an unterminated stderr section', 'echo out; printf err >&2; exit 1'],
    ['an empty body is (no output)', 'true'],
    ['(no output) then the exit code marker', 'exit 1'],
    ['killed by a signal', 'kill -KILL $$'],
  ])('%s', async (name, command) => {
    const result = await bash(session, command);
    expect(result.isError).toBeUndefined();
    expect(text(result)).toBe(golden(name));
  });

  it('returns the structured value next to the text', async () => {
    const result = await bash(session, 'echo failing; echo oops >&2; exit 3');
    expect(result.structuredContent).toEqual({
      kind: 'foreground',
      exitCode: 3,
      signal: null,
      timedOut: false,
      aborted: false,
      timeoutMs: 120_000,
      stdout: { text: 'failing\n', truncated: false },
      stderr: { text: 'oops\n', truncated: false },
    });
  });

  it('timed out and killed (promotion off)', async () => {
    const s = deadline.session({ id: 'golden-deadline', cwd: work });
    const result = await bash(s, 'sleep 60', { timeoutMs: 100 });
    expect(text(result)).toBe(golden('timed out and killed'));
    expect(result.structuredContent).toMatchObject({ kind: 'foreground', timedOut: true, signal: 'SIGTERM', timeoutMs: 100 });
  });

  it('timed out even though the command then exited 0', async () => {
    const s = deadline.session({ id: 'golden-deadline', cwd: work });
    // bash traps TERM and exits 0 once its waited-for sleep is killed with the group.
    // A generous timeout: the trap must be in place before TERM arrives, even on a loaded machine.
    const result = await bash(s, "trap 'exit 0' TERM; echo partial; sleep 30 & wait", { timeoutMs: 2_000 });
    expect(text(result)).toBe(golden('timed out even though the command then exited 0'));
    expect(result.structuredContent).toMatchObject({ exitCode: 0, signal: null, timedOut: true });
  });

  it('truncated stdout whose spill is unavailable', async () => {
    const s = tiny.session({ id: 'golden-tiny', cwd: work });
    const result = await bash(s, "printf 'head\\ntail'");
    // The golden of the contract, and the line under it that says why (a 0-byte spill cap here).
    expect(text(result)).toBe(
      `${golden('truncated stdout whose spill is unavailable')}\n[spill unavailable: the stream passed 0 bytes, the most one spill file may hold (maxSpillBytes)]`,
    );
    expect(result.structuredContent).toMatchObject({ stdout: { text: 'tail', truncated: true } });
    expect((result.structuredContent!.stdout as { spillPath?: string }).spillPath).toBeUndefined();
  });

  it('truncated stdout names its spill file, which holds the whole stream', async () => {
    const s = tinySpill.session({ id: 'golden-spill', cwd: work });
    const result = await bash(s, "printf 'head\\ntail\\n'");
    const spillPath = (result.structuredContent!.stdout as { spillPath: string }).spillPath;
    expect(spillPath).toMatch(/\.stdout\.log$/);
    expect(text(result)).toBe(golden('truncated stdout names its spill file').replace('/var/spill/capture-7.stdout.log', spillPath));
    expect(readFileSync(spillPath, 'utf8')).toBe('head\ntail\n');
    expect(statSync(spillPath).mode & 0o777).toBe(0o600);
    await s.close();
    expect(existsSync(spillPath)).toBe(false);
  });
});

describe('a person stopping a foreground command', () => {
  /** Runs `command` in the foreground and stops it through runtime.jobs once `ready` says it is ready. */
  async function stopWhileWaiting(command: string, reason: string | undefined, ready: () => boolean) {
    const s = main.session({ id: `stop-${Math.random()}`, cwd: work });
    const call = bash(s, command);
    const job = await until(() => main.jobs!.list(s.id)[0], 5_000, 'the foreground job');
    expect(job).toMatchObject({ state: 'running', foreground: true, kind: 'bash' });
    await until(ready, 5_000, 'the command to be ready');
    expect(reason === undefined ? main.jobs!.kill(job.id) : main.jobs!.kill(job.id, reason)).toBe(true);
    const result = await call;
    // The call returned its own result: the job left with it.
    expect(main.jobs!.list(s.id)).toEqual([]);
    await s.close();
    return result;
  }

  it('stopped by a person (default reason)', async () => {
    let started = 0;
    const result = await stopWhileWaiting('sleep 30', undefined, () => (started ||= Date.now()) + 200 < Date.now());
    expect(text(result)).toBe(golden('stopped by a person'));
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ kind: 'foreground', stopped: 'cancelled by the user', signal: 'SIGTERM' });
  });

  it('stopped, then the command exited on its own terms', async () => {
    const flag = join(work, 'trap-ready');
    const result = await stopWhileWaiting(
      `trap 'echo bye; exit 143' TERM; touch ${flag}; sleep 30 & wait`,
      'superseded by a newer build',
      () => existsSync(flag),
    );
    expect(text(result)).toBe(golden('stopped, then the command exited on its own terms'));
  });
});
