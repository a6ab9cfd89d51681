// The MCP face through the official SDK client: output schemas it validates against, portable input schemas, and
// one clear error line for arguments that are not an object or ids no job has.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { serveHttp, type HttpServer } from '../../src/faces/mcp/index.js';
import { call, httpTransport, newClient, textOf, workdir, type TestClient } from './helpers.js';

const work = workdir('mcp-contract');
let server: HttpServer;
let tc: TestClient;

beforeAll(async () => {
  server = await serveHttp({ port: 0, cwd: work });
  tc = newClient('contract');
  await tc.client.connect(httpTransport(server.url, server.token));
});

afterAll(async () => {
  await tc.client.close();
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

/** tools/call exactly as a client put it on the wire, past the SDK client's own typing. */
async function rawCall(name: string, args: unknown): Promise<CallToolResult> {
  return (await tc.client.request({ method: 'tools/call', params: { name, arguments: args } as never }, CallToolResultSchema)) as CallToolResult;
}

/** Every `additionalProperties` in a schema, at any depth. */
function additional(node: unknown, found: unknown[] = []): unknown[] {
  if (Array.isArray(node)) for (const item of node) additional(item, found);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'additionalProperties') found.push(value);
      additional(value, found);
    }
  }
  return found;
}

describe('tool schemas', () => {
  it('declare an object outputSchema per tool, and carry no empty additionalProperties', async () => {
    const { tools } = await tc.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['bash', 'job_output', 'job_list', 'job_kill', 'job_input']);
    for (const tool of tools) {
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      const empty = additional([tool.inputSchema, tool.outputSchema]).filter(
        (value) => value !== null && typeof value === 'object' && Object.keys(value).length === 0,
      );
      expect(empty, tool.name).toEqual([]);
    }
  });

  it('results satisfy them: the SDK client validates structuredContent against each outputSchema', async () => {
    // callTool throws when structuredContent does not match the listed outputSchema.
    const foreground = await call(tc.client, 'bash', { command: 'echo hi; exit 2', description: 'Print and fail' });
    expect(foreground.structuredContent).toMatchObject({ kind: 'foreground', exitCode: 2 });
    const started = await call(tc.client, 'bash', { command: 'seq 1 20000', description: 'Count', run_in_background: true });
    const jobId = (started.structuredContent as { jobId: string }).jobId;
    const read = await call(tc.client, 'job_output', { job_id: jobId, wait: true });
    // A finished job's first read leads with its newest output (from `9202`, a line start) and names the spill file.
    expect(read.structuredContent).toMatchObject({ jobId, unreadBytes: 0 });
    expect(textOf(read)).toMatch(/^\[skipped 44898 bytes of older output; full output: \S+\.stdout\.log \(108894 bytes\); grep or tail the file instead of paging\]\n9202\n/);
    expect(textOf(read).endsWith('\n20000\n[status: completed, exit code: 0]')).toBe(true);
    const listed = await call(tc.client, 'job_list', {});
    expect(listed.structuredContent).toMatchObject({ jobs: [{ id: jobId, label: 'seq 1 20000', description: 'Count' }] });
    const killed = await call(tc.client, 'job_kill', { job_id: jobId });
    expect(textOf(killed)).toBe(`job ${jobId} had already finished [status: completed, exit code: 0]`);
    // Generous: `early` must be out before the timeout however loaded the host.
    const promoted = await call(tc.client, 'bash', { command: 'echo early; sleep 60', description: 'Outlive the timeout', timeoutMs: 2_000 });
    expect(promoted.structuredContent).toMatchObject({ kind: 'promoted', output: 'early\n' });
    await call(tc.client, 'job_kill', { job_id: (promoted.structuredContent as { jobId: string }).jobId });
  });
});

describe('bad input over MCP', () => {
  it('answers arguments that are not an object with one clear error line', async () => {
    for (const [args, kind] of [
      [[], 'an array'],
      [null, 'null'],
      ['echo hi', 'a string'],
    ] as const) {
      const result = await rawCall('bash', args);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(`Error: invalid arguments: expected an object, got ${kind}`);
    }
    // Omitted arguments are an empty object.
    const listed = await rawCall('job_list', undefined);
    expect(listed.isError).toBeFalsy();
    expect(textOf(listed)).toMatch(/^bash-\d+ \[bash\] /);
  });

  it('answers a tool name that is not a string with one clear error line, not a schema dump', async () => {
    for (const [name, shown] of [
      [42, '42'],
      [null, 'null'],
      [['bash'], '["bash"]'],
    ] as const) {
      const result = await rawCall(name as never, { command: 'echo hi', description: 'Say hi' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        `Error: invalid tool name: expected a string naming one of this session's tools (see tools/list), got ${shown}`,
      );
    }
  });

  it('cuts an id to a readable length and shows a NUL as an escape', async () => {
    const long = await call(tc.client, 'job_output', { job_id: 'x'.repeat(1_000_000) });
    expect(textOf(long)).toBe(`Error: unknown job "${'x'.repeat(80)}"… (1000000 characters)`);
    const nul = await call(tc.client, 'job_kill', { job_id: 'bash-1\u0000; rm -rf /' });
    expect(textOf(nul)).toBe('Error: unknown job "bash-1\\u0000; rm -rf /"');
    const typed = await call(tc.client, 'job_output', { job_id: 'bash-1', wait: 'yes' });
    expect(textOf(typed)).toBe('Error: invalid wait: expected a boolean, got "yes"');
  });
});
