// A 2026-07-28 approval's requestState holds for the state it was asked in: an approval given in the default state
// and replayed with `session: <handle>` (or the other way, or in another handle, or on another tool) is refused with
// -32602 and runs nothing; the same state, honestly retried where it was asked, still runs the call once.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { modernErrors } from '../../src/contract/index.js';
import { serveHttp, type HttpServer } from '../../src/faces/mcp/index.js';
import { workdir } from './helpers.js';
import { RawModern, textOfResult } from './modern-helpers.js';

const work = workdir('request-state-bindings');
let server: HttpServer;
let raw: RawModern;

beforeAll(async () => {
  server = await serveHttp({ port: 0, cwd: work, sandboxMode: 'read-only' });
  raw = new RawModern(
    new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${server.token}` } } }),
    { elicitation: { form: {} } },
  );
  await raw.start();
});

afterAll(async () => {
  await raw?.close();
  await server?.close();
});

const allow = { 'approval-1': { action: 'accept', content: { decision: 'allow-once' } } };
const refused = { code: -32602, message: modernErrors.stateInvalid };

function escalate(file: string) {
  return { command: `echo written > ${file} && cat ${file}`, description: 'write a file in the workspace', sandbox_permissions: 'workspace-write', justification: 'the task needs this file' };
}

async function open(): Promise<string> {
  const { result } = await raw.request('tools/call', { name: 'session_open', arguments: {} });
  return (result!.structuredContent as { session: string }).session;
}

/** The requestState of an escalation asked in `session` (the default state when undefined). */
async function asked(args: Record<string, unknown>, session?: string): Promise<string> {
  const { result } = await raw.request('tools/call', { name: 'bash', arguments: { ...args, ...(session ? { session } : {}) } });
  expect(result!.resultType).toBe('input_required');
  return result!.requestState as string;
}

function retry(name: string, args: Record<string, unknown>, requestState: string, session?: string) {
  return raw.request('tools/call', { name, arguments: { ...args, ...(session ? { session } : {}) }, inputResponses: allow, requestState });
}

describe('requestState, bound to its state', () => {
  it('refuses an approval given in the default state, replayed with session: <handle>', async () => {
    const args = escalate('default-to-handle.txt');
    const handle = await open();
    const state = await asked(args);
    expect((await retry('bash', args, state, handle)).error).toMatchObject(refused);
    expect(existsSync(join(work, 'default-to-handle.txt'))).toBe(false);
    expect(textOfResult((await retry('bash', args, state)).result!)).toBe('written\n');
  });

  it('refuses one given in a handle, replayed in the default state or in another handle', async () => {
    const args = escalate('handle-elsewhere.txt');
    const [first, second] = [await open(), await open()];
    const state = await asked(args, first);
    expect((await retry('bash', args, state)).error).toMatchObject(refused);
    expect((await retry('bash', args, state, second)).error).toMatchObject(refused);
    expect(existsSync(join(work, 'handle-elsewhere.txt'))).toBe(false);
    expect(textOfResult((await retry('bash', args, state, first)).result!)).toBe('written\n');
  });

  it('refuses one replayed on another tool', async () => {
    const args = escalate('other-tool.txt');
    const state = await asked(args);
    // The same arguments, so only the tool tells them apart.
    expect((await retry('job_list', args, state)).error).toMatchObject(refused);
    expect(textOfResult((await retry('bash', args, state)).result!)).toBe('written\n');
  });
});
