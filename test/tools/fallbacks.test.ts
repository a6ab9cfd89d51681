// Every fallback says what happened on a line of its own: the job limit forcing a kill, an expired wait, no second
// escalation hint after an escalated retry, a narrower mode refused before a missing justification, no escalation
// fields where nothing is confined, and no leftover count for a killed command's own dying group.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { background, bash, text, until } from '../helpers/calls.js';
import { runtimes } from '../helpers/runtimes.js';
import { processesWith } from '../helpers/processes.js';
import { bashParamDocs } from '../../src/contract/index.js';

const open = runtimes();
const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-fallbacks-')));
let serial = 0;

const timeoutDoc = (tools: { name: string; inputSchema: any }[]) =>
  tools.find((tool) => tool.name === 'bash')!.inputSchema.properties.timeoutMs.description;

describe('fallbacks', () => {
  it('names the job limit when a timeout kills instead of handing over, and the listing stops promising it', async () => {
    const runtime = await open({ jobs: { maxJobsPerOwner: 1 } });
    const s = runtime.session({ id: `limit-${++serial}`, cwd: work });
    expect(timeoutDoc(s.listTools())).toBe(bashParamDocs.timeoutMsPromotes(runtime.executor.commandLimits));
    const id = await background(s, 'sleep 300');
    expect(timeoutDoc(s.listTools())).toBe(bashParamDocs.timeoutMs(runtime.executor.commandLimits));
    const bashTool = s.listTools().find((tool) => tool.name === 'bash')!;
    expect(bashTool.description).not.toContain('is not killed');
    // Generous: `hi` must be out before the timeout however loaded the host.
    const result = await bash(s, 'echo hi; sleep 30', { timeoutMs: 2_000 });
    expect(text(result)).toBe(
      'hi\n[timed out after 2000ms]\n[not moved to background: job limit reached (1); job_kill one to free a slot]\n[killed by signal: SIGTERM]',
    );
    await s.callTool('job_kill', { job_id: id });
    await until(() => runtime.jobs!.list(s.id).every((job) => job.state !== 'running' && job.state !== 'stopping'));
    expect(timeoutDoc(s.listTools())).toBe(bashParamDocs.timeoutMsPromotes(runtime.executor.commandLimits));
  });

  it('says an expired wait expired', async () => {
    const runtime = await open();
    const s = runtime.session({ id: `wait-${++serial}`, cwd: work });
    const id = await background(s, 'sleep 300');
    expect(text(await s.callTool('job_output', { job_id: id, wait: true, timeout_ms: 200 }))).toBe(
      '(no new output)\n[waited 200ms; still running]\n[status: running]',
    );
    expect(text(await s.callTool('job_output', { job_id: id }))).toBe('(no new output)\n[status: running]');
    await s.callTool('job_kill', { job_id: id });
  });

  it('refuses a narrower mode before asking for a justification, and lists no escalation where nothing is confined', async () => {
    const runtime = await open({ sandbox: { mode: 'danger-full-access' }, approval: { request: async () => 'allowed-once' } });
    const s = runtime.session({ id: `narrow-${++serial}`, cwd: work });
    const bashTool = s.listTools().find((tool) => tool.name === 'bash')!;
    expect(Object.keys(bashTool.inputSchema.properties)).not.toContain('sandbox_permissions');
    expect(Object.keys(bashTool.inputSchema.properties)).not.toContain('justification');
    const result = await bash(s, 'true', { sandbox_permissions: 'workspace-write' });
    expect(text(result)).toBe('Error: sandbox escalation to "workspace-write" is not strictly wider than this call\'s current "danger-full-access" mode');
    s.setSandboxMode('read-only');
    const listed = s.listTools().find((tool) => tool.name === 'bash')!;
    expect(Object.keys(listed.inputSchema.properties)).toContain('sandbox_permissions');
  });

  it('gives no second escalation hint after an escalated retry was denied', async () => {
    // The host read view shows the place outside the workspace, so the write there is a denial, not a missing path.
    const runtime = await open({ sandbox: { mode: 'read-only', read: 'host' }, approval: { request: async () => 'allowed-once' } });
    const s = runtime.session({ id: `retry-${++serial}`, cwd: work });
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-outside-')));
    const command = `echo x > ${outside}/f`;
    const first = text(await bash(s, command));
    expect(first).toContain('[sandbox: file access denied under read-only mode]\n[sandbox: escalation available');
    const retry = text(
      await bash(s, command, { sandbox_permissions: 'workspace-write', justification: 'The test writes outside the workspace.' }),
    );
    expect(retry).toMatch(/\n\[sandbox: file access denied under workspace-write mode\]\n\[exit code: 1\]$/);
    expect(retry).not.toContain('escalation available');
  });

  it('does not count a killed command\'s own group, which the grace ends, as left running', async () => {
    const runtime = await open({ jobs: false, executor: { graceMs: 2000 } });
    const s = runtime.session({ id: `killed-${++serial}`, cwd: work });
    const marker = `sleep 3${++serial}7`;
    // Generous: the inner shell must ignore TERM before the timeout however loaded the host, or nothing outlives it.
    const result = await bash(s, `sh -c 'trap "" TERM; ${marker}' & sleep 300`, { timeoutMs: 2_000 });
    expect(text(result)).toBe('(no output)\n[timed out after 2000ms]\n[killed by signal: SIGTERM]');
    await until(() => processesWith(marker).length === 0, 15_000, 'the group to end at the grace');
  });
});
