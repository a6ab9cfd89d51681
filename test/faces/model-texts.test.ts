// What the model reads when something did not go the usual way, byte for byte, through every face: the library's
// session, MCP 2025-11-25 and 2026-07-28 through their official clients (each result checked against its tool's
// outputSchema), and the Cordis plugins. A read outside the session's view (both backends), a confined command's
// leftover ended, a capped timeout and a capped wait, an unknown argument, a full-screen program, a job forgotten by
// retention, and escalations and asks under the approval policy `never`.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { Context } from 'cordis';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type RuntimeOptions } from '../../src/index.js';
import { serveHttp } from '../../src/faces/mcp/index.js';
import { bashLocal, bashSandbox, jobsLocal, shellEnv, systemPrompt, toolBash, toolJobs, tools, whenClosed, type ToolRegistry } from '../../src/cordis/index.js';
import { readableSummary } from '../../src/contract/index.js';
import { call, httpTransport, newClient, textOf, workdir } from './helpers.js';
import { checkedCall, modernClient, textOfResult } from './modern-helpers.js';
import { assertConforms } from '../helpers/output-schemas.js';
import { until } from '../helpers/until.js';

const work = workdir('model-texts');
/** A place outside every session's view, with a file the host can read. */
const outside = workdir('model-texts-outside');

beforeAll(() => {
  writeFileSync(`${outside}/notes.txt`, 'not for this session\n');
  mkdirSync(`${work}/.dsh`, { recursive: true });
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

interface Answer {
  text: string;
  isError: boolean;
}

interface Face {
  call(tool: string, args: Record<string, unknown>): Promise<Answer>;
  close(): Promise<void>;
}

type FaceName = 'library' | 'MCP 2025-11-25' | 'MCP 2026-07-28' | 'Cordis';
const FACES: FaceName[] = ['library', 'MCP 2025-11-25', 'MCP 2026-07-28', 'Cordis'];

const answer = (result: { content?: unknown; isError?: unknown }, text: string): Answer => ({ text, isError: result.isError === true });

/** One face over a runtime composed with `options` (Cordis: the same executor, sandbox, jobs and approval). */
async function open(face: FaceName, options: RuntimeOptions): Promise<Face> {
  if (face === 'library') {
    const runtime = await createRuntime(options);
    const session = runtime.session({ id: 'texts', cwd: work });
    return {
      call: async (tool, args) => {
        const result = await session.callTool(tool, args);
        assertConforms(session.listTools(), tool, result);
        return answer(result, textOfResult(result));
      },
      close: () => runtime.close(),
    };
  }
  if (face === 'Cordis') return cordis(options);
  const server = await serveHttp({ port: 0, cwd: work, runtimeOptions: options });
  if (face === 'MCP 2025-11-25') {
    const tc = newClient('texts');
    await tc.client.connect(httpTransport(server.url, server.token));
    return {
      call: async (tool, args) => {
        const result = await call(tc.client, tool, args);
        return answer(result, textOf(result));
      },
      close: async () => {
        await tc.client.close();
        await server.close();
      },
    };
  }
  const mc = await modernClient(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${server.token}` } } }), 'texts');
  return {
    call: async (tool, args) => {
      const result = await checkedCall(mc, tool, args);
      return answer(result, textOfResult(result));
    },
    close: async () => {
      await mc.client.close();
      await server.close();
    },
  };
}

async function cordis(options: RuntimeOptions): Promise<Face> {
  const ctx = new Context();
  ctx.plugin(tools);
  ctx.plugin(systemPrompt);
  ctx.plugin(shellEnv, { dshHome: `${work}/.dsh` });
  const executor = { ...options.executor, cwd: work };
  if (options.sandbox) ctx.plugin(bashSandbox, { ...executor, ...options.sandbox });
  else ctx.plugin(bashLocal, executor);
  if (options.jobs !== false) ctx.plugin(jobsLocal, options.jobs ?? {});
  if (options.approval) ctx.set('approval', options.approval);
  ctx.plugin(toolBash);
  ctx.plugin(toolJobs);
  await ctx.lifecycle.flush();
  const registry: ToolRegistry = ctx.get('tools')!;
  return {
    call: async (tool, args) => {
      const result = await registry.call(tool, args, { sessionId: 'texts', cwd: work });
      return answer(result, textOfResult(result));
    },
    close: async () => {
      await ctx.stop();
      await whenClosed(ctx);
    },
  };
}

const bash = (command: string, extra: Record<string, unknown> = {}) => ({ command, description: 'run a test command', ...extra });

describe.each(FACES)('unconfined, through %s', (name) => {
  let face: Face;

  beforeAll(async () => {
    face = await open(name, { executor: { maxTimeoutMs: 60_000, threads: 1 }, jobs: { maxWaitMs: 300, maxSettledPerOwner: 1 } });
  });
  afterAll(() => face.close());

  it('says a timeoutMs over the cap was capped', async () => {
    expect((await face.call('bash', bash('echo hi', { timeoutMs: 700_000 }))).text).toBe('hi\n[timeoutMs capped at 60000: 700000 is more than this server allows]');
  });

  it('refuses an unknown argument, naming the one meant and those it takes; nothing runs', async () => {
    const refused = await face.call('bash', bash(`touch ${work}/ran`, { timeout: 5000 }));
    expect(refused).toEqual({
      text: 'Error: unknown argument "timeout" (did you mean timeoutMs?): bash takes command, description, timeoutMs, workdir, run_in_background, tty',
      isError: true,
    });
  });

  it('ends a full-screen program at once with what to run instead', async () => {
    expect((await face.call('bash', bash('vi notes.txt'))).text).toBe(
      "[stderr]\nshellring: vi is a full-screen program and this command has no terminal; edit with a command instead (sed -i, a patch, or cat > file <<'EOF'), and read with cat, head or sed -n\n[exit code: 1]",
    );
  });

  it('says a wait over the cap was capped', async () => {
    const started = await face.call('bash', bash('sleep 30', { run_in_background: true }));
    const id = /^started background job (\S+)$/.exec(started.text)![1]!;
    expect((await face.call('job_output', { job_id: id, wait: true, timeout_ms: 5000 })).text).toBe(
      '(no new output)\n[timeout_ms capped at 300: 5000 is more than one wait may take]\n[waited 300ms; still running]\n[status: running]',
    );
    await face.call('job_kill', { job_id: id });
  });

  it('says when and why a job was forgotten, and where its output still is', async () => {
    const ids: string[] = [];
    for (const command of ['seq 1 30000', 'echo second']) {
      const started = await face.call('bash', bash(command, { run_in_background: true }));
      const id = /^started background job (\S+)$/.exec(started.text)![1]!;
      ids.push(id);
      // Each wait lasts at most the 300 ms cap: waited again until the job has finished.
      await until(async () => (await face.call('job_output', { job_id: id, wait: true })).text.includes('[status: completed'), 20_000, `${id} to finish`);
    }
    const forgotten = await face.call('job_output', { job_id: ids[0]! });
    const [, at, spill] = /^Error: job \S+ was forgotten at (\S+): .*; full output: (\S+) \(/.exec(forgotten.text) ?? [];
    expect(forgotten.text).toBe(
      `Error: job ${ids[0]} was forgotten at ${at}: this session keeps only its 1 newest finished jobs; it had finished [status: completed, exit code: 0]; full output: ${spill} (168894 bytes)`,
    );
    expect(Math.abs(Date.parse(at!) - Date.now())).toBeLessThan(120_000);
  });
});

describe.each(['bubblewrap', 'landlock'] as const)('confined by %s', (backend) => {
  describe.each(FACES)('through %s', (name) => {
    let face: Face;
    const policy = name === 'Cordis' ? {} : { policy: { rules: [{ decision: 'ask' as const, command: ['id'], message: 'looking up users needs a person' }] } };

    beforeAll(async () => {
      face = await open(name, { executor: { threads: 1 }, sandbox: { backend, mode: 'read-only' }, approval: { policy: 'never' }, ...policy });
    });
    afterAll(() => face.close());

    it("names a path outside the session's view as the sandbox's doing, with what it can read, and offers no write mode", async () => {
      const result = await face.call('bash', bash(`cat ${outside}/notes.txt; ls /var/lib/dpkg`));
      const ls = backend === 'bubblewrap' ? "ls: cannot access '/var/lib/dpkg': No such file or directory" : "ls: cannot open directory '/var/lib/dpkg': Permission denied";
      expect(result.text).toBe(
        `[stderr]\ncat: ${outside}/notes.txt: No such file or directory\n${ls}\n[sandbox: ${outside}/notes.txt, /var/lib/dpkg are outside what this session can read; it can read ${readableSummary('read-only', work, { view: 'session', readAllow: [] })}]\n[exit code: 2]`,
      );
    });

    it('says what its sandbox ended with a command', async () => {
      expect((await face.call('bash', bash('sleep 30 & echo started'))).text).toBe(
        'started\n[1 process left running was ended with the command: in the sandbox nothing outlives its command; run a server as the whole command of a run_in_background call, not with &]',
      );
    });

    it('refuses an escalation under the approval policy never without saying a person rejected it', async () => {
      const refused = await face.call('bash', bash('touch written', { sandbox_permissions: 'workspace-write', justification: 'the task writes a file.' }));
      expect(refused).toEqual({
        text: 'Error: sandbox escalation to "workspace-write" is refused without asking anyone: this deployment\'s approval policy is "never"',
        isError: true,
      });
      if (name === 'Cordis') return;
      expect((await face.call('bash', bash('id -u'))).text).toBe(
        '[policy: denied, this deployment\'s approval policy is "never", so nobody is asked — id: looking up users needs a person]',
      );
    });
  });
});
