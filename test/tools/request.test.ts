// What reaches the child: only named arguments (an unknown key is refused: it never runs a call), the workdir, and the
// managed DSH_* environment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createRuntime, type Runtime, type Session } from '../../src/index.js';
import { background, bash, text } from '../helpers/calls.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-request-')));
const home = join(work, 'dsh-home');
let runtime: Runtime;
let session: Session;

beforeAll(async () => {
  runtime = await createRuntime({
    dshHome: home,
    locateSessionJsonl: (id) => (id === 'with-log' ? join(home, 'sessions', `${id}.jsonl`) : undefined),
  });
  session = runtime.session({ id: 'request-1', cwd: work });
});

afterAll(async () => {
  await runtime?.close();
});

/** The line an unknown argument of bash reads, with this composition's arguments (jobs and terminals, no sandbox). */
const BASH_TAKES = 'bash takes command, description, timeoutMs, workdir, run_in_background, tty';

describe('unknown keys are refused, never forwarded, and nothing runs', () => {
  const marker = () => join(work, 'ran-anyway');
  const refused = async (extra: Record<string, unknown>) => {
    const result = await bash(session, `touch ${marker()}`, extra);
    expect(result.isError).toBe(true);
    expect(existsSync(marker())).toBe(false);
    return text(result);
  };

  it('env', async () => {
    expect(await refused({ env: { X: 'y', DSH_SESSION_ID: 'forged' } })).toBe(`Error: unknown argument "env": ${BASH_TAKES}`);
  });

  it('stdin', async () => {
    expect(await refused({ stdin: 'secret input\n' })).toBe(`Error: unknown argument "stdin": ${BASH_TAKES}`);
  });

  it('stdoutMaxBytes', async () => {
    expect(await refused({ stdoutMaxBytes: 3 })).toBe(`Error: unknown argument "stdoutMaxBytes": ${BASH_TAKES}`);
  });

  it('anything else, alongside valid arguments, each named', async () => {
    expect(await refused({ dshEnv: { DSH_EXTRA: 'x' }, signal: 'x', sessionId: 'other' })).toBe(
      `Error: unknown arguments "dshEnv", "signal", "sessionId": ${BASH_TAKES}`,
    );
  });

  it("another tool's name for an argument: the one meant is named (never guessed into a value)", async () => {
    expect(await refused({ timeout: 5000 })).toBe(`Error: unknown argument "timeout" (did you mean timeoutMs?): ${BASH_TAKES}`);
    expect(await refused({ timeout_ms: 5000, cwd: '/', background: true })).toBe(
      `Error: unknown arguments "timeout_ms" (did you mean timeoutMs?), "cwd" (did you mean workdir?), "background" (did you mean run_in_background?): ${BASH_TAKES}`,
    );
    expect(await refused({ Command: 'x', TIMEOUTMS: 1 })).toBe(
      `Error: unknown arguments "Command" (did you mean command?), "TIMEOUTMS" (did you mean timeoutMs?): ${BASH_TAKES}`,
    );
  });

  it('many: the first five, then how many more; a long or odd name is shown quoted and cut', async () => {
    const extra = Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((name) => [name, 1]));
    expect(await refused(extra)).toBe(`Error: unknown arguments "a", "b", "c", "d", "e" and 2 more: ${BASH_TAKES}`);
    expect(await refused({ ['x'.repeat(100)]: 1 })).toBe(`Error: unknown argument "${'x'.repeat(80)}"… (100 characters): ${BASH_TAKES}`);
    expect(await refused({ 'line\nbreak': 1 })).toBe(`Error: unknown argument "line\\nbreak": ${BASH_TAKES}`);
  });

  it('the job tools refuse theirs the same way', async () => {
    const id = await background(session, 'true');
    expect(text(await session.callTool('job_output', { job_id: id, block: true }))).toBe(
      'Error: unknown argument "block" (did you mean wait?): job_output takes job_id, wait, timeout_ms',
    );
    expect(text(await session.callTool('job_output', { jobId: id }))).toBe(
      'Error: unknown argument "jobId" (did you mean job_id?): job_output takes job_id, wait, timeout_ms',
    );
    expect(text(await session.callTool('job_list', { all: true }))).toBe('Error: unknown argument "all": job_list takes no arguments');
    expect(text(await session.callTool('job_kill', { job_id: id, signal: 'KILL' }))).toBe('Error: unknown argument "signal": job_kill takes job_id, reason');
  });

  it('the listed schemas say so (additionalProperties: false)', () => {
    for (const tool of session.listTools()) expect(tool.inputSchema.additionalProperties).toBe(false);
  });
});

describe('workdir', () => {
  it('defaults to the session cwd', async () => {
    expect(text(await bash(session, 'pwd'))).toBe(`${work}\n`);
  });

  it('resolves a relative workdir against the session cwd', async () => {
    mkdirSync(join(work, 'sub', 'dir'), { recursive: true });
    expect(text(await bash(session, 'pwd', { workdir: 'sub/dir' }))).toBe(`${join(work, 'sub', 'dir')}\n`);
    expect(text(await bash(session, 'pwd', { workdir: '..' }))).toBe(`${dirname(work)}\n`);
    const nested = runtime.session({ id: 'request-nested', cwd: join(work, 'sub') });
    expect(text(await bash(nested, 'pwd', { workdir: 'dir' }))).toBe(`${join(work, 'sub', 'dir')}\n`);
  });

  it('takes an absolute workdir as it is', async () => {
    expect(text(await bash(session, 'pwd', { workdir: '/' }))).toBe('/\n');
  });

  it('a session without a cwd runs in the host working directory', async () => {
    const plain = runtime.session({ id: 'request-plain' });
    expect(plain.cwd).toBe(process.cwd());
    expect(text(await bash(plain, 'pwd'))).toBe(`${realpathSync(process.cwd())}\n`);
  });

  it('applies to background jobs too', async () => {
    const id = await background(session, 'pwd');
    const output = await session.callTool('job_output', { job_id: id, wait: true, timeout_ms: 5_000 });
    expect(text(output)).toBe(`${work}\n[status: completed, exit code: 0]`);
  });
});

describe('the managed environment', () => {
  it('sets DSH_SESSION_ID, DSH_SHELL and an absolute DSH_HOME', async () => {
    const result = await bash(session, 'echo "$DSH_SESSION_ID|$DSH_SHELL|$DSH_HOME|${DSH_SESSION_JSONL-unset}"');
    expect(text(result)).toBe(`request-1|1|${home}|unset\n`);
    const other = runtime.session({ id: 'with-log', cwd: work });
    expect(text(await bash(other, 'echo "$DSH_SESSION_ID|$DSH_SESSION_JSONL"'))).toBe(
      `with-log|${join(home, 'sessions', 'with-log.jsonl')}\n`,
    );
  });

  it('resolves a relative dshHome to an absolute path', async () => {
    const relative = await createRuntime({ dshHome: 'relative/home', executor: { threads: 1 } });
    try {
      const s = relative.session({ id: 'relative', cwd: work });
      expect(text(await bash(s, 'echo "$DSH_HOME"'))).toBe(`${resolve('relative/home')}\n`);
    } finally {
      await relative.close();
    }
  });

  it('never passes the host DSH_* names or credentials through', async () => {
    process.env.DSH_LEAKED = 'host';
    process.env.dsh_lower = 'host';
    process.env.MY_SERVICE_TOKEN = 'hunter2';
    try {
      const result = await bash(session, 'env | grep -iE "^(DSH_LEAKED|dsh_lower|MY_SERVICE_TOKEN)=" || echo clean');
      expect(text(result)).toBe('clean\n');
    } finally {
      delete process.env.DSH_LEAKED;
      delete process.env.dsh_lower;
      delete process.env.MY_SERVICE_TOKEN;
    }
  });

  it('an env contributor registered on runtime.env adds its key, per call, until removed', async () => {
    const seen: unknown[] = [];
    const unregister = runtime.env.register({
      name: 'deploy',
      variables: { DSH_DEPLOY_TARGET: { description: 'where this session deploys to' } },
      resolve: (execution) => {
        seen.push(execution);
        return { DSH_DEPLOY_TARGET: `staging-${execution.sessionId}` };
      },
    });
    try {
      const result = await session.callTool(
        'bash',
        { command: 'echo "$DSH_DEPLOY_TARGET"', description: 'Print the deploy target' },
        { callId: 'call-7' },
      );
      expect(text(result)).toBe('staging-request-1\n');
      expect(seen).toEqual([{ sessionId: 'request-1', callId: 'call-7', toolName: 'bash', cwd: work }]);
      const id = await background(session, 'echo "$DSH_DEPLOY_TARGET"');
      const output = await session.callTool('job_output', { job_id: id, wait: true, timeout_ms: 5_000 });
      expect(text(output)).toBe('staging-request-1\n[status: completed, exit code: 0]');
    } finally {
      unregister();
    }
    expect(text(await bash(session, 'echo "[$DSH_DEPLOY_TARGET]"'))).toBe('[]\n');
  });

  it("a contributor's bad value fails the call with the registry's message, and nothing runs", async () => {
    const unregister = runtime.env.register({
      name: 'broken',
      variables: { DSH_BROKEN: { description: 'a value that is not a string' } },
      resolve: () => ({ DSH_BROKEN: 42 as unknown as string }),
    });
    try {
      const result = await bash(session, 'echo ran');
      expect(result.isError).toBe(true);
      expect(text(result)).toBe('Error: bash env contributor "broken" returned a non-string value for "DSH_BROKEN"');
    } finally {
      unregister();
    }
  });
});
