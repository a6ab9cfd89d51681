// Sandbox escalation approvals routed to MCP form elicitation: granted, declined, and no channel at all.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { serveHttp, type HttpServer } from '../../src/faces/mcp/index.js';
import { call, elicitingClient, textOf, workdir, type TestClient } from './helpers.js';

const work = workdir('mcp-approval');
let server: HttpServer;

const connect = (name: string, answer?: (request: ElicitRequest) => ElicitResult) => elicitingClient(server, name, answer);

const escalate = (file: string) => ({
  command: `echo written > ${file} && cat ${file}`,
  description: 'write a file in the workspace',
  sandbox_permissions: 'workspace-write',
  justification: 'the task needs this file',
});

beforeAll(async () => {
  server = await serveHttp({ port: 0, cwd: work, sandboxMode: 'read-only' });
});

afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

describe('approval through MCP elicitation', () => {
  it('offers escalation only to a client that can ask its user', async () => {
    const plain = await connect('plain');
    const eliciting = await connect('eliciting', () => ({ action: 'decline' }));
    const bashOf = async (tc: TestClient) => (await tc.client.listTools()).tools.find((tool) => tool.name === 'bash')!;
    const [plainBash, elicitingBash] = [await bashOf(plain), await bashOf(eliciting)];
    expect(Object.keys(plainBash.inputSchema.properties ?? {})).not.toContain('sandbox_permissions');
    expect(Object.keys(plainBash.inputSchema.properties ?? {})).not.toContain('justification');
    expect(plainBash.description).not.toContain('sandbox_permissions');
    expect(Object.keys(elicitingBash.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['sandbox_permissions', 'justification']));
    expect(elicitingBash.description).toContain('sandbox_permissions');
    // Byte-stable per configuration: a second client of the same kind lists the same bytes.
    const again = await connect('eliciting-again', () => ({ action: 'decline' }));
    expect(JSON.stringify(await bashOf(again))).toBe(JSON.stringify(elicitingBash));

    // A denial hints at escalation only where it can be approved.
    const write = { command: 'echo x > denied.txt', description: 'try to write a file' };
    // The shell's own message depends on the backend (Landlock: Permission denied; a read-only mount: Read-only file system).
    const markersOf = (text: string) => text.replace(/^\[stderr\]\nbash: line 1: denied\.txt: (Permission denied|Read-only file system)\n/, '');
    expect(markersOf(textOf(await call(plain.client, 'bash', write)))).toBe(
      '[sandbox: file access denied under read-only mode]\n[exit code: 1]',
    );
    expect(markersOf(textOf(await call(eliciting.client, 'bash', write)))).toBe(
      '[sandbox: file access denied under read-only mode]\n' +
        '[sandbox: escalation available — retry this exact command once with sandbox_permissions (the narrowest wider mode that suffices) + justification; the approval prompt asks the user]\n' +
        '[exit code: 1]',
    );
    expect(existsSync(join(work, 'denied.txt'))).toBe(false);
    for (const tc of [plain, eliciting, again]) await tc.client.close();
  });

  it('runs the call once with the wider mode when the user allows it', async () => {
    const tc = await connect('allows', () => ({ action: 'accept', content: { decision: 'allow-once' } }));
    const result = await call(tc.client, 'bash', escalate('granted.txt'));
    expect(textOf(result)).toBe('written\n');
    expect(readFileSync(join(work, 'granted.txt'), 'utf8')).toBe('written\n');
    expect(tc.asked).toHaveLength(1);
    // The person sees what would run, where, in which mode, and why.
    expect(tc.asked[0]!.params.message).toBe(
      [
        'The bash tool asks to escalate sandbox to workspace-write: the task needs this file.',
        'Command: echo written > granted.txt && cat granted.txt',
        `Working directory: ${work}`,
        'Sandbox: workspace-write for this one call (otherwise read-only).',
        'Allow it once?',
      ].join('\n'),
    );
    expect(tc.asked[0]!.params).toMatchObject({ mode: 'form', requestedSchema: { required: ['decision'] } });
    // The grant covered that one call: the next plain write is confined again.
    await call(tc.client, 'bash', { command: 'echo x > after.txt', description: 'write without escalation' });
    expect(existsSync(join(work, 'after.txt'))).toBe(false);
    await tc.client.close();
  });

  it('reports a declined prompt as the user rejecting it, and a cancelled one as cancelled', async () => {
    const declines = await connect('declines', () => ({ action: 'decline' }));
    const rejected = await call(declines.client, 'bash', escalate('rejected.txt'));
    expect(rejected.isError).toBe(true);
    expect(textOf(rejected)).toBe('Error: the user rejected escalating this command to "workspace-write"');
    expect(existsSync(join(work, 'rejected.txt'))).toBe(false);
    await declines.client.close();

    const cancels = await connect('cancels', () => ({ action: 'cancel' }));
    const cancelled = await call(cancels.client, 'bash', escalate('cancelled.txt'));
    expect(textOf(cancelled)).toBe('Error: approval for escalating to "workspace-write" was cancelled');
    await cancels.client.close();
  });

  it('says no approval channel is available when the client cannot elicit', async () => {
    const tc = await connect('no-elicitation');
    const result = await call(tc.client, 'bash', escalate('unavailable.txt'));
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'Error: sandbox escalation to "workspace-write" requires approval, but no approval channel is available',
    );
    expect(existsSync(join(work, 'unavailable.txt'))).toBe(false);
    await tc.client.close();
  });
});
