// What reaches the child: only named arguments (unknown keys never do), the workdir, and the managed DSH_* environment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
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

describe('unknown keys are ignored and never forwarded', () => {
  it('env', async () => {
    const result = await bash(session, 'echo "[$X][$DSH_SESSION_ID]"', { env: { X: 'y', DSH_SESSION_ID: 'forged' } });
    expect(text(result)).toBe('[][request-1]\n');
  });

  it('stdin', async () => {
    const result = await bash(session, 'cat; readlink /proc/self/fd/0', { stdin: 'secret input\n' });
    expect(text(result)).toBe('/dev/null\n');
  });

  it('stdoutMaxBytes', async () => {
    const result = await bash(session, 'printf 0123456789', { stdoutMaxBytes: 3 });
    expect(text(result)).toBe('0123456789');
    expect(result.structuredContent).toMatchObject({ stdout: { text: '0123456789', truncated: false } });
  });

  it('anything else, alongside valid arguments', async () => {
    const result = await bash(session, 'echo "[$DSH_EXTRA]"', { dshEnv: { DSH_EXTRA: 'x' }, signal: 'x', sessionId: 'other' });
    expect(text(result)).toBe('[]\n');
    expect(text(await bash(session, 'echo $DSH_SESSION_ID', { sessionId: 'other' }))).toBe('request-1\n');
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
