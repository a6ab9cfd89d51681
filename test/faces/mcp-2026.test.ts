// MCP 2026-07-28 through the official 2026 SDK client, over stdio (`shellring mcp`) and HTTP (`serveHttp`): the
// contract suite, approvals as input_required (allowed, rejected, a policy's ask, forged and replayed state), jobs
// as tasks, handles bound to their principal, and a 2025-11-25 client beside a 2026 one on the same endpoint.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { createRuntime } from '../../src/index.js';
import { jobsPrompt } from '../../src/contract/index.js';
import { serveHttp, SessionRoutes, type HttpServer } from '../../src/faces/mcp/index.js';
import { ModernFace } from '../../src/faces/mcp/modern/face.js';
import { StateCodec } from '../../src/faces/mcp/modern/request-state.js';
import { ModernStates } from '../../src/faces/mcp/modern/states.js';
import { call as call2025, cli, httpTransport, newClient, repo, textOf, workdir } from './helpers.js';
import { until } from '../helpers/until.js';
import { checkedCall, MODERN, modernClient, RawModern, textOfResult, type ModernClient } from './modern-helpers.js';

const work = workdir('mcp-2026');
const policyFile = join(work, '..', `${work.split('/').pop()}-policy.json`);
let server: HttpServer;

/** A fresh official transport of each kind: a `shellring mcp` child, or the HTTP endpoint with the bearer token. */
const transports: Record<'stdio' | 'http', () => Transport> = {
  stdio: () =>
    new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp', '--cwd', work, '--sandbox', 'read-only', '--policy', policyFile], stderr: 'ignore' }),
  http: () => new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${server.token}` } } }),
};

const escalate = (file: string) => ({
  command: `echo written > ${file} && cat ${file}`,
  description: 'write a file in the workspace',
  sandbox_permissions: 'workspace-write',
  justification: 'the task needs this file',
});

async function callText(mc: ModernClient, name: string, args: Record<string, unknown>): Promise<{ text: string; result: Record<string, unknown> }> {
  const result = await checkedCall(mc, name, args);
  return { text: textOfResult(result), result };
}

beforeAll(async () => {
  writeFileSync(policyFile, JSON.stringify({ rules: [{ decision: 'ask', command: ['id'], message: 'looking up users needs a person' }] }));
  server = await serveHttp({
    port: 0,
    cwd: work,
    sandboxMode: 'read-only',
    runtimeOptions: { policy: { rules: [{ decision: 'ask', command: ['id'], message: 'looking up users needs a person' }] } },
  });
});

afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
  rmSync(policyFile, { force: true });
});

describe.each(['stdio', 'http'] as const)('2026-07-28 over %s, official client', (kind) => {
  let mc: ModernClient;

  beforeAll(async () => {
    mc = await modernClient(transports[kind](), `modern-${kind}`);
  });

  afterAll(async () => {
    await mc.client.close();
  });

  it('negotiates the 2026 revision and lists the tools with a session handle argument', async () => {
    expect(mc.client.getProtocolEra()).toBe('modern');
    expect(mc.client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(mc.client.getServerVersion()?.name).toBe('shellring');
    const { tools } = await mc.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['bash', 'job_output', 'job_list', 'job_kill', 'job_input', 'session_open']);
    const bash = tools.find((tool) => tool.name === 'bash')!;
    expect(bash.inputSchema.properties?.session).toMatchObject({ type: 'string', 'x-mcp-header': 'Shellring-Session' });
    // The client elicits, so escalation is offered.
    expect(Object.keys(bash.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['sandbox_permissions', 'justification']));
    expect(bash.annotations).toMatchObject({ destructiveHint: true });
  });

  it('runs bash with the exact texts of 2025', async () => {
    const { text, result } = await callText(mc, 'bash', { command: 'echo failing; exit 3', description: 'exit with status three' });
    expect(text).toBe('failing\n[exit code: 3]');
    expect(result.structuredContent).toMatchObject({ kind: 'foreground', exitCode: 3 });
  });

  it('runs a background job to completion and kills another (job tools, no tasks extension declared)', async () => {
    const started = await callText(mc, 'bash', { command: 'echo one; echo two', description: 'print two lines', run_in_background: true });
    const jobId = /^started background job (\S+)$/.exec(started.text)![1]!;
    const read = await callText(mc, 'job_output', { job_id: jobId, wait: true });
    expect(read.text).toBe('one\ntwo\n[status: completed, exit code: 0]');
    const sleeper = await callText(mc, 'bash', { command: 'sleep 60', description: 'sleep a minute', run_in_background: true });
    const sleepId = /^started background job (\S+)$/.exec(sleeper.text)![1]!;
    const listed = await callText(mc, 'job_list', {});
    expect(listed.text).toContain(`${sleepId} [bash] running — sleep 60`);
    const killed = await callText(mc, 'job_kill', { job_id: sleepId });
    expect(killed.text).toBe(`requested cancellation of job ${sleepId}`);
  });

  it('carries a 5 MB output: the tail in the result, the whole in its spill file', async () => {
    const { text, result } = await callText(mc, 'bash', { command: "head -c 5000000 /dev/zero | tr '\\0' x", description: 'print five megabytes' });
    const stdout = (result.structuredContent as { stdout: { spillPath: string; truncated: boolean } }).stdout;
    expect(stdout.truncated).toBe(true);
    expect(statSync(stdout.spillPath).size).toBe(5_000_000);
    expect(text).toContain(`full output: ${stdout.spillPath}`);
  });

  it('hands a call past its timeout off to a job (promoted), promising no notice: this revision sends none', async () => {
    // Generous: `early` must be out before the timeout however loaded the host.
    const { text, result } = await callText(mc, 'bash', { command: 'echo early; sleep 60', description: 'outlive the timeout', timeoutMs: 2_000 });
    expect(result.structuredContent).toMatchObject({ kind: 'promoted', output: 'early\n' });
    const jobId = (result.structuredContent as { jobId: string }).jobId;
    expect(text).toBe(
      `early\n[still running after 2000ms; moved to background job ${jobId}]\nThe command keeps running in the background. No notice comes when it finishes: wait for it with job_output and wait: true; read newer output with job_output, stop it with job_kill.`,
    );
    await callText(mc, 'job_kill', { job_id: jobId });
  });

  it('tells how to wait instead of promising a notice, in its instructions and the bash description', async () => {
    const instructions = mc.client.getInstructions() ?? '';
    expect(instructions).toContain(jobsPrompt(false));
    expect(instructions).not.toContain('notified');
    expect(instructions).toContain('\n\nSandbox mode of this session: read-only (set by a person; it can change between calls).\nCommands can write: nothing');
    const { tools } = await mc.client.listTools();
    const bash = tools.find((tool) => tool.name === 'bash')!;
    expect(bash.description).toContain('stop one with job_kill; no notice comes when a job finishes: wait for one with job_output and wait: true.');
    expect(bash.description).not.toContain('you are told when');
  });

  it('asks for an escalation as input_required and runs it once when allowed', async () => {
    mc.answer.decision = 'allow-once';
    mc.asked.length = 0;
    const { text } = await callText(mc, 'bash', escalate(`granted-${kind}.txt`));
    expect(text).toBe('written\n');
    expect(readFileSync(join(work, `granted-${kind}.txt`), 'utf8')).toBe('written\n');
    expect(mc.asked).toEqual([
      [
        'The bash tool asks to escalate sandbox to workspace-write: the task needs this file.',
        `Command: echo written > granted-${kind}.txt && cat granted-${kind}.txt`,
        `Working directory: ${work}`,
        'Sandbox: workspace-write for this one call (otherwise read-only).',
        'Allow it once?',
      ].join('\n'),
    ]);
  });

  it('refuses an escalation the user rejects, with the 2025 text', async () => {
    mc.answer.decision = 'reject';
    const { text, result } = await callText(mc, 'bash', escalate(`rejected-${kind}.txt`));
    expect(result.isError).toBe(true);
    expect(text).toBe('Error: the user rejected escalating this command to "workspace-write"');
    expect(existsSync(join(work, `rejected-${kind}.txt`))).toBe(false);
  });

  it("routes a command policy's ask the same way", async () => {
    mc.answer.decision = 'allow-once';
    mc.asked.length = 0;
    const allowed = await callText(mc, 'bash', { command: `id -u >/dev/null && echo allowed-${kind}`, description: 'look up the user' });
    expect(allowed.text).toBe(`allowed-${kind}\n`);
    expect(mc.asked).toHaveLength(1);
    expect(mc.asked[0]).toContain('looking up users needs a person');
    mc.answer.decision = 'reject';
    const refused = await callText(mc, 'bash', { command: 'id -u', description: 'look up the user' });
    expect(refused.text).toBe('[policy: rejected by the user — id: looking up users needs a person]');
  });

  it('refuses a forged requestState and a replayed one (a hand-made client: the SDK echoes state byte for byte)', async () => {
    const raw = new RawModern(transports[kind](), { elicitation: { form: {} } });
    await raw.start();
    try {
      const args = escalate(`state-${kind}.txt`);
      const first = (await raw.request('tools/call', { name: 'bash', arguments: args })).result!;
      expect(first.resultType).toBe('input_required');
      const requestState = first.requestState as string;
      expect(Object.keys(first.inputRequests as object)).toEqual(['approval-1']);
      const allow = { 'approval-1': { action: 'accept', content: { decision: 'allow-once' } } };
      const retry = (state: string, retried = args) => raw.request('tools/call', { name: 'bash', arguments: retried, inputResponses: allow, requestState: state });
      // Altered: one character of the sealed payload changed, so the MAC no longer matches.
      const at = requestState.indexOf('.') + 5;
      const forged = `${requestState.slice(0, at)}${requestState[at] === 'A' ? 'B' : 'A'}${requestState.slice(at + 1)}`;
      expect((await retry(forged)).error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' });
      // An authentic state on other arguments: bound to the exact call.
      expect((await retry(requestState, { ...args, command: 'echo other' })).error).toMatchObject({ code: -32602 });
      expect(existsSync(join(work, `state-${kind}.txt`))).toBe(false);
      // Honest once (the failed attempts did not use it up), then replayed.
      expect(textOfResult((await retry(requestState)).result!)).toBe('written\n');
      rmSync(join(work, `state-${kind}.txt`));
      expect((await retry(requestState)).error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' });
      expect(existsSync(join(work, `state-${kind}.txt`))).toBe(false);
    } finally {
      await raw.close();
    }
  });

  it('keeps separate state behind a handle, and refuses a malformed one', async () => {
    const opened = await callText(mc, 'session_open', {});
    const handle = (opened.result.structuredContent as { session: string }).session;
    expect(handle).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(opened.text).toBe(`opened session ${handle}: pass "session": "${handle}" to bash, job_output, job_list and job_kill to use it`);
    const started = await callText(mc, 'bash', { command: 'sleep 30', description: 'sleep', run_in_background: true, session: handle });
    const jobId = /^started background job (\S+)$/.exec(started.text)![1]!;
    expect((await callText(mc, 'job_list', { session: handle })).text).toContain(`${jobId} [bash] running — sleep 30`);
    // The default state does not have it.
    expect((await callText(mc, 'job_output', { job_id: jobId })).text).toMatch(/^Error: /);
    expect((await callText(mc, 'job_kill', { job_id: jobId, session: handle })).text).toBe(`requested cancellation of job ${jobId}`);
    const bad = await callText(mc, 'job_list', { session: 'nope' });
    expect(bad.text).toBe('Error: invalid session: expected the handle session_open returned, got "nope"');
  });
});

describe.each(['stdio', 'http'] as const)('tasks over %s (tasks extension declared)', (kind) => {
  let raw: RawModern;

  beforeAll(async () => {
    raw = new RawModern(transports[kind]());
    await raw.start();
  });

  afterAll(async () => {
    await raw.close();
  });

  it("answers run_in_background with a task whose result carries the texts job_output gives, as bash's result", async () => {
    const { result } = await raw.request('tools/call', {
      name: 'bash',
      arguments: { command: 'echo one; sleep 0.3; echo two', description: 'two lines', run_in_background: true },
    });
    expect(result).toMatchObject({ resultType: 'task', status: 'working', ttlMs: null, pollIntervalMs: 1000 });
    const taskId = result!.taskId as string;
    expect(taskId).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    const done = await raw.settled(taskId);
    expect(done).toMatchObject({ resultType: 'complete', status: 'completed', taskId });
    expect(textOfResult(done.result as object)).toBe('one\ntwo\n[status: completed, exit code: 0]');
    // bash's outputSchema holds (settled() checks it): its kind and job, with what job_output reported.
    expect((done.result as { structuredContent: unknown }).structuredContent).toMatchObject({
      kind: 'background',
      jobId: expect.stringMatching(/^bash-\d+$/),
      unreadBytes: 0,
      job: { state: 'completed', detail: 'exit code: 0' },
    });
    // Polling a finished task again gives the same result.
    expect((await raw.settled(taskId)).result).toEqual(done.result);
  });

  it('answers a promoted call with a task, and tasks/cancel is job_kill', async () => {
    const { result } = await raw.request('tools/call', {
      name: 'bash',
      // Generous: `early` must be out before the timeout however loaded the host.
      arguments: { command: 'echo early; sleep 60', description: 'outlive the timeout', timeoutMs: 2_000 },
    });
    expect(result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = result!.taskId as string;
    const jobId = /job (bash-\d+) is running/.exec(result!.statusMessage as string)![1]!;
    // While it runs, its status carries the newest line it printed.
    expect((await raw.request('tasks/get', { taskId })).result).toMatchObject({ status: 'working', statusMessage: `job ${jobId} is running; newest line: early` });
    expect((await raw.request('tasks/cancel', { taskId })).result).toMatchObject({ resultType: 'complete' });
    const cancelled = await raw.settled(taskId);
    expect(cancelled).toMatchObject({ status: 'cancelled' });
    expect(cancelled.statusMessage).toMatch(/^early\n[\s\S]*\[status: killed/);
    // tasks/update: nothing ever waits for input; an unknown task is the specification's invalid params (-32602).
    expect((await raw.request('tasks/update', { taskId, inputResponses: {} })).result).toMatchObject({ resultType: 'complete' });
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
      expect((await raw.request(method, { taskId: 'nowhere.AAAAAAAAAAAAAAAAAAAAAA' })).error).toMatchObject({
        code: -32602,
        message: 'task nowhere.AAAAAAAAAAAAAAAAAAAAAA is unknown here: it expired, or it belongs to other credentials',
      });
    }
  });

  it('says in a terminal job task\'s status when the job waits on its terminal, and job_input answers it', async () => {
    const { result } = await raw.request('tools/call', {
      name: 'bash',
      arguments: { command: 'python3 -i -q', description: 'a REPL', tty: true, run_in_background: true },
    });
    expect(result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = result!.taskId as string;
    const jobId = /job (bash-\d+) is running/.exec(result!.statusMessage as string)![1]!;
    const waiting = new RegExp(`^job ${jobId} is running; newest line: >>> \\[waiting for input: pid \\d+ \\(python3[^)]*\\) reads its terminal; answer it with job_input\\]$`);
    await until(async () => waiting.test((await raw.request('tasks/get', { taskId })).result?.statusMessage as string), 60_000, 'the waiting line in the task status');
    const answered = await raw.request('tools/call', { name: 'job_input', arguments: { job_id: jobId, text: 'print(6*7)\n' } });
    expect(JSON.stringify(answered.result)).toContain('42');
    expect((await raw.request('tasks/cancel', { taskId })).result).toMatchObject({ resultType: 'complete' });
  });

  it("answers a promoted call with a task whose result conforms to bash's outputSchema, the earlier output first", async () => {
    const { result } = await raw.request('tools/call', {
      name: 'bash',
      // Generous: `early` must be out before the timeout however loaded the host.
      arguments: { command: 'echo early; sleep 3; echo late', description: 'outlive the timeout', timeoutMs: 2_000 },
    });
    const done = await raw.settled(result!.taskId as string);
    // The job's output continues exactly after what the call showed: no line is added between them.
    expect(textOfResult(done.result as object)).toBe('early\nlate\n[status: completed, exit code: 0]');
    expect((done.result as { structuredContent: unknown }).structuredContent).toMatchObject({ kind: 'promoted', timeoutMs: 2_000, output: 'early\n', unreadBytes: 0 });
  });
});

describe('one HTTP endpoint, both revisions, two principals', () => {
  it('serves a 2025-11-25 client and a 2026-07-28 client at once', async () => {
    const legacy = newClient('legacy-beside-modern');
    await legacy.client.connect(httpTransport(server.url, server.token));
    const modern = await modernClient(transports.http(), 'modern-beside-legacy');
    const [a, b] = await Promise.all([
      call2025(legacy.client, 'bash', { command: 'echo legacy', description: 'print' }),
      callText(modern, 'bash', { command: 'echo modern', description: 'print' }),
    ]);
    expect(textOf(a)).toBe('legacy\n');
    expect(b.text).toBe('modern\n');
    expect(legacy.client.getServerCapabilities()).toBeDefined();
    await legacy.client.close();
    await modern.client.close();
  });

});

describe('instance ids', () => {
  it('refuses one a handle could not carry in front of its dot', async () => {
    await expect(serveHttp({ port: 0, cwd: work, instanceId: 'a.b' })).rejects.toThrow(
      'invalid instance id "a.b": expected 1 to 64 letters, digits, "_" or "-"',
    );
  });
});

describe('idle expiry of 2026 states', () => {
  it('closes a default state and a handle idle past the timeout, their jobs killed', async () => {
    let now = 0;
    let reads = 0;
    const clock = () => {
      reads += 1;
      return now;
    };
    const idle = await serveHttp({ port: 0, cwd: work, idleTimeoutMs: 1000, clock });
    const mc = await modernClient(
      new StreamableHTTPClientTransport(new URL(idle.url), { requestInit: { headers: { authorization: `Bearer ${idle.token}` } } }),
      'idle',
    );
    try {
      const handle = ((await callText(mc, 'session_open', {})).result.structuredContent as { session: string }).session;
      await callText(mc, 'bash', { command: 'sleep 60', description: 'sleep', run_in_background: true });
      await callText(mc, 'bash', { command: 'sleep 60', description: 'sleep', run_in_background: true, session: handle });
      const running = () => idle.runtime.jobs!.list().filter((job) => job.state === 'running' || job.state === 'stopping').length;
      now += 999;
      // Several sweeps pass without closing anything: each reads the clock, and decides every expiry as it does.
      const from = reads;
      await until(() => reads - from >= 6, 20_000, 'the idle sweep to read the clock');
      expect(running()).toBe(2);
      now += 1;
      await until(() => running() === 0, 10_000, 'both states to expire and their jobs to be killed');
      expect((await callText(mc, 'job_list', { session: handle })).text).toBe(
        `Error: session ${handle} is unknown here: it expired, its server restarted, or it was opened with other credentials; call session_open for a new one`,
      );
      expect((await callText(mc, 'job_list', {})).text).toBe('(no background jobs)');
      expect(running()).toBe(0);
    } finally {
      await mc.client.close();
      await idle.close();
    }
  });
});

describe("the README's 2026 client example", () => {
  it('negotiates 2026-07-28 with versionNegotiation auto and runs bash', async () => {
    const readme = readFileSync(join(repo, 'README.md'), 'utf8');
    const example = [...readme.matchAll(/```mjs\n([\s\S]*?)```/g)].map((m) => m[1]!).find((code) => code.includes('versionNegotiation'))!;
    expect(example).toContain("new URL('http://127.0.0.1:8808/mcp')");
    // Inside the repository, so the SDK resolves from its node_modules.
    const file = join(repo, `.readme-2026-${process.pid}.mjs`);
    writeFileSync(file, example.replace('http://127.0.0.1:8808/mcp', server.url));
    try {
      const out = await new Promise<string>((resolve, reject) => {
        execFile(process.execPath, [file], { env: { ...process.env, SHELLRING_TOKEN: server.token } }, (error, stdout, stderr) =>
          error ? reject(new Error(stderr || error.message)) : resolve(stdout),
        );
      });
      expect(out).toBe('2026-07-28\nhi\n\n');
    } finally {
      rmSync(file, { force: true });
    }
  });
});

describe('principals', () => {
  it("makes one principal's job ids, handles and tasks unusable by another", async () => {
    // One SDK handler in process, reached by two principals (authInfo, as the HTTP face passes the credential's).
    const runtime = await createRuntime();
    const states = new ModernStates({ runtime, routes: new SessionRoutes(), instanceId: 'i1', cwd: work });
    const face = new ModernFace({ runtime, states, codec: new StateCodec('i1') });
    const handler = createMcpHandler(() => face.server((ctx) => ctx.http?.authInfo?.clientId ?? 'anonymous'), { legacy: 'reject' });
    const as = (principal: string) =>
      new StreamableHTTPClientTransport(new URL('http://in-process.invalid/mcp'), {
        fetch: (url, init) => handler.fetch(new Request(url, init), { authInfo: { token: '', clientId: principal, scopes: [] } }),
      });
    const alice = await modernClient(as('alice'), 'alice');
    const mallory = await modernClient(as('mallory'), 'mallory');
    const aliceRaw = new RawModern(as('alice'));
    const malloryRaw = new RawModern(as('mallory'));
    try {
      const started = await callText(alice, 'bash', { command: 'sleep 30', description: 'sleep', run_in_background: true });
      const jobId = /^started background job (\S+)$/.exec(started.text)![1]!;
      expect(jobId).toMatch(/^bash-\d+$/);
      // Mallory's default state has no such job, and cannot kill Alice's.
      expect((await callText(mallory, 'job_kill', { job_id: jobId })).text).toMatch(/^Error: /);
      expect((await callText(alice, 'job_list', {})).text).toContain(`${jobId} [bash] running — sleep 30`);
      const handle = ((await callText(alice, 'session_open', {})).result.structuredContent as { session: string }).session;
      expect(handle.startsWith('i1.')).toBe(true);
      expect((await callText(mallory, 'job_list', { session: handle })).text).toBe(
        `Error: session ${handle} is unknown here: it expired, its server restarted, or it was opened with other credentials; call session_open for a new one`,
      );
      const task = await aliceRaw.request('tools/call', { name: 'bash', arguments: { command: 'sleep 30', description: 'sleep', run_in_background: true } });
      const taskId = task.result!.taskId as string;
      expect(taskId.startsWith('i1.')).toBe(true);
      expect((await malloryRaw.request('tasks/get', { taskId })).error?.message).toContain(`task ${taskId} is unknown here`);
      expect((await malloryRaw.request('tasks/cancel', { taskId })).error).toBeDefined();
      expect((await aliceRaw.request('tasks/get', { taskId })).result).toMatchObject({ status: 'working' });
      await aliceRaw.request('tasks/cancel', { taskId });
      await callText(alice, 'job_kill', { job_id: jobId });
    } finally {
      await alice.client.close();
      await mallory.client.close();
      await handler.close();
      await states.closeAll();
      await runtime.close();
    }
  });
});
