// What a session offers and accepts: call input judged in one error line, the cwd fallback, agent-scoped tool
// restrictions, escalation listed only where someone can approve, and what an approval request carries.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/index.js';
import { text } from '../helpers/calls.js';
import { runtimes } from '../helpers/runtimes.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-session-')));
const open = runtimes();
let serial = 0;

const echo = { command: 'echo hi', description: 'Say hi' };
const write = { command: 'echo x > escalated.txt', description: 'Write a file' };
const HINT =
  '[sandbox: escalation available — retry this exact command once with sandbox_permissions (the narrowest wider mode that suffices) + justification; the approval prompt asks the user]';

function bashOf(tools: { name: string; description: string; inputSchema: Record<string, unknown> }[]) {
  const bash = tools.find((tool) => tool.name === 'bash')!;
  return { description: bash.description, fields: Object.keys(bash.inputSchema.properties as object) };
}

describe('call input', () => {
  it('takes null options as none, and refuses options, signals and call ids of the wrong shape in one line', async () => {
    const s = (await open()).session({ id: `input-${++serial}`, cwd: work });
    expect(text(await s.callTool('bash', echo, null))).toBe('hi\n');
    expect(text(await s.callTool('bash', echo, 'fast' as never))).toBe('Error: invalid call options: expected an object, got a string');
    expect(text(await s.callTool('bash', echo, { signal: {} as AbortSignal }))).toBe(
      'Error: invalid signal: expected an AbortSignal, got an object',
    );
    expect(text(await s.callTool('bash', echo, { callId: 5 as never }))).toBe('Error: invalid callId: expected a string, got 5');
    // A bad signal used to fail later, from a timer, outside any call: nothing is left running to do that.
    expect(text(await s.callTool('job_list', {}))).toBe('(no background jobs)');
  });

  it('names the field and the value for arguments of the wrong type, and cuts long values', async () => {
    const s = (await open()).session({ id: `types-${++serial}`, cwd: work });
    expect(text(await s.callTool('bash', { ...echo, workdir: 5 }))).toBe('Error: invalid workdir: expected a string, got 5');
    expect(text(await s.callTool('bash', { ...echo, run_in_background: 'yes' }))).toBe(
      'Error: invalid run_in_background: expected a boolean, got "yes"',
    );
    expect(text(await s.callTool('job_kill', { job_id: 'bash-1', reason: ['a'] }))).toBe(
      'Error: invalid reason: expected a string, got ["a"]',
    );
    expect(text(await s.callTool('job_output', { job_id: 10n }))).toBe('Error: invalid job_id: expected a non-empty string, got 10n');
    const huge = Array.from({ length: 100_000 }, (_, i) => i);
    expect(text(await s.callTool('job_output', { job_id: huge }))).toBe(
      `Error: invalid job_id: expected a non-empty string, got ${JSON.stringify(huge).slice(0, 80)}…`,
    );
    expect(text(await s.callTool('z'.repeat(500), {}))).toBe(`Error: unknown tool "${'z'.repeat(80)}"… (500 characters)`);
  });
});

describe('working directory', () => {
  it('falls back to the executor’s configured cwd, then the host’s', async () => {
    const configured = await open({ executor: { cwd: work } });
    const s = configured.session({ id: `cwd-${++serial}` });
    expect(s.cwd).toBe(work);
    expect(text(await s.callTool('bash', { command: 'pwd', description: 'Print the directory' }))).toBe(`${work}\n`);
    const plain = (await open()).session({ id: `cwd-${++serial}` });
    expect(plain.cwd).toBe(process.cwd());
    expect(() => configured.session({ id: `cwd-${++serial}`, cwd: 7 as never })).toThrow(
      'invalid session cwd: expected a non-empty string, got 7',
    );
  });
});

describe('session ids and reopening', () => {
  it('refuses an id that is blank, too long for the environment, or holds control characters', async () => {
    const runtime = await open();
    const expected = (shown: string) =>
      `invalid session id: expected 1 to 256 characters, none of them control characters, got ${shown}`;
    expect(() => runtime.session({ id: '' })).toThrow(expected('""'));
    expect(() => runtime.session({ id: '   ' })).toThrow(expected('"   "'));
    expect(() => runtime.session({ id: 7 as never })).toThrow(expected('a number'));
    expect(() => runtime.session({ id: 'x'.repeat(1_000_000) })).toThrow(expected(`"${'x'.repeat(80)}"… (1000000 characters)`));
    expect(() => runtime.session({ id: 'a\nb' })).toThrow(expected('"a\\nb"'));
    const most = runtime.session({ id: 'é'.repeat(256), cwd: work });
    expect(text(await most.callTool('bash', { command: 'printf %s "$DSH_SESSION_ID" | wc -m', description: 'Count the id' }))).toBe('256\n');
    expect(() => runtime.session({ id: 'é'.repeat(257) })).toThrow(expected(`"${'é'.repeat(80)}"… (257 characters)`));
  });

  it('returns the open session for its id, and refuses to reopen it with another cwd or tools', async () => {
    const runtime = await open();
    const id = `reopen-${++serial}`;
    const first = runtime.session({ id, cwd: work, tools: ['bash'] });
    expect(runtime.session({ id, cwd: work, tools: ['bash'] })).toBe(first);
    // Options left out are not compared: the id alone finds the open session.
    expect(runtime.session({ id })).toBe(first);
    expect(() => runtime.session({ id, cwd: '/' })).toThrow(
      `session ${id} is already open with cwd ${JSON.stringify(work)}; close it before opening it with other options, or open it with the same ones`,
    );
    expect(() => runtime.session({ id, tools: ['bash', 'job_list'] })).toThrow(
      `session ${id} is already open with tools ["bash"]; close it before opening it with other options, or open it with the same ones`,
    );
    await first.close();
    expect(runtime.session({ id, cwd: '/' }).cwd).toBe('/');
  });
});

describe('agent-scoped tool restrictions', () => {
  it('lists and runs only the tools the session may use; the prompt sections stay', async () => {
    const runtime = await open();
    const s = runtime.session({ id: `scoped-${++serial}`, cwd: work, tools: ['bash', 'job_output'] });
    expect(s.listTools().map((tool) => tool.name)).toEqual(['bash', 'job_output']);
    expect(runtime.listTools().map((tool) => tool.name)).toEqual(['bash', 'job_output', 'job_list', 'job_kill', 'job_input']);
    expect(text(await s.callTool('job_list', {}))).toBe('Error: tool "job_list" is not available to this session');
    expect(text(await s.callTool('bash', echo))).toBe('hi\n');
    const none = runtime.session({ id: `scoped-${++serial}`, cwd: work, tools: [] });
    expect(none.listTools()).toEqual([]);
    expect(text(await none.callTool('bash', echo))).toBe('Error: tool "bash" is not available to this session');
    expect(runtime.promptSections().map((section) => section.name)).toEqual(['tool:bash', 'tool:jobs']);
    expect(() => runtime.session({ id: `scoped-${++serial}`, tools: ['bsh'] })).toThrow(
      `invalid session tools: unknown tool "bsh" (shellring's tools are bash, job_output, job_list, job_kill, job_input)`,
    );
    expect(() => runtime.session({ id: `scoped-${++serial}`, tools: 'bash' as never })).toThrow(
      'invalid session tools: expected an array of tool names, got a string',
    );
  });
});

describe('escalation where someone can approve', () => {
  it('is not offered without an approval channel: no fields, no retry paragraph, no hint after a denial', async () => {
    const runtime = await open({ sandbox: { mode: 'read-only' } });
    const s = runtime.session({ id: `no-channel-${++serial}`, cwd: work });
    const bash = bashOf(s.listTools());
    expect(bash.fields).not.toContain('sandbox_permissions');
    expect(bash.fields).not.toContain('justification');
    expect(bash.description).toContain('nobody here can widen it');
    expect(bash.description).not.toContain('sandbox_permissions');
    const denied = text(await s.callTool('bash', write));
    expect(denied).toContain('[sandbox: file access denied under read-only mode]');
    expect(denied).not.toContain(HINT);
    // Sent anyway, the field meets its own error.
    expect(text(await s.callTool('bash', { ...write, sandbox_permissions: 'workspace-write', justification: 'It writes.' }))).toBe(
      'Error: sandbox escalation to "workspace-write" requires approval, but no approval service is composed',
    );
  });

  it('is offered where approval.request exists, per session as `available` says, and never under policy never', async () => {
    const reachable = new Set<string>();
    const runtime = await open({
      sandbox: { mode: 'read-only' },
      approval: { request: async () => 'rejected', available: (sessionId) => reachable.has(sessionId) },
    });
    const yes = runtime.session({ id: `reachable-${++serial}`, cwd: work });
    reachable.add(yes.id);
    const no = runtime.session({ id: `unreachable-${++serial}`, cwd: work });
    expect(bashOf(yes.listTools()).fields).toEqual(expect.arrayContaining(['sandbox_permissions', 'justification']));
    expect(bashOf(no.listTools()).fields).not.toContain('sandbox_permissions');
    expect(text(await yes.callTool('bash', write))).toContain(HINT);
    expect(text(await no.callTool('bash', write))).not.toContain(HINT);
    // Byte-stable: the same configuration lists the same bytes.
    const again = runtime.session({ id: `reachable-${++serial}`, cwd: work });
    reachable.add(again.id);
    expect(JSON.stringify(again.listTools())).toBe(JSON.stringify(yes.listTools()));

    const never = await open({ sandbox: { mode: 'read-only' }, approval: { policy: 'never', request: async () => 'allowed-once' } });
    expect(bashOf(never.listTools()).fields).not.toContain('sandbox_permissions');
  });

  it('a session’s own channel (a console) offers it there only, and receives what a person needs to decide', async () => {
    const runtime = await open({ sandbox: { mode: 'read-only' } });
    const watched = runtime.session({ id: `console-${++serial}`, cwd: work });
    const asked: ApprovalRequest[] = [];
    watched.setApprovalChannel(async (request) => {
      asked.push(request);
      return 'allowed-once';
    });
    const other = runtime.session({ id: `plain-${++serial}`, cwd: work });
    expect(bashOf(watched.listTools()).fields).toContain('sandbox_permissions');
    expect(bashOf(other.listTools()).fields).not.toContain('sandbox_permissions');
    expect(bashOf(runtime.listTools()).fields).not.toContain('sandbox_permissions');

    const result = await watched.callTool(
      'bash',
      { command: 'echo x > granted.txt && pwd', description: 'Write a file', workdir: '.', sandbox_permissions: 'workspace-write', justification: '  The task writes granted.txt.  ' },
      { callId: 'call-7' },
    );
    expect(text(result)).toBe(`${work}\n`);
    expect(asked).toHaveLength(1);
    const { signal, ...request } = asked[0]!;
    expect(signal).toBeUndefined();
    expect(request).toEqual({
      kind: 'escalation',
      sessionId: watched.id,
      toolName: 'bash',
      callId: 'call-7',
      command: 'echo x > granted.txt && pwd',
      cwd: work,
      mode: 'workspace-write',
      currentMode: 'read-only',
      justification: 'The task writes granted.txt.',
      reason: 'escalate sandbox to workspace-write: The task writes granted.txt.',
    });
    watched.setApprovalChannel(undefined);
    expect(bashOf(watched.listTools()).fields).not.toContain('sandbox_permissions');
  });
});

describe('run_in_background', () => {
  it('admits the job and returns its id; a preparation failure settles it as failed', async () => {
    const runtime = await open({ sandbox: { mode: 'workspace-write' } });
    const s = runtime.session({ id: `prep-${++serial}`, cwd: '/' });
    const started = await s.callTool('bash', { command: 'echo never', description: 'Print a word', run_in_background: true });
    expect(started.isError).toBeUndefined();
    const id = (started.structuredContent as { jobId: string }).jobId;
    expect(text(started)).toBe(`started background job ${id}`);
    const failure = 'sandbox workspace root "/" is refused: it would make the whole filesystem writable';
    expect(text(await s.callTool('job_output', { job_id: id, wait: true, timeout_ms: 5_000 }))).toBe(
      `[stderr]\n${failure}\n[status: failed, ${failure}]`,
    );
    // The same preparation failure in the foreground is the call's error: there is no job to carry it.
    expect(text(await s.callTool('bash', { command: 'echo never', description: 'Print a word' }))).toBe(`Error: ${failure}`);
  });
});
