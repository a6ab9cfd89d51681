// The MCP server over stdio, driven by the official SDK client through the built `shellring mcp` executable.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BASH_PROMPT, createRuntime, type ListedTool } from '../../src/index.js';
import { instructionsOf } from '../../src/faces/mcp/server.js';
import { processesWith } from '../helpers/processes.js';
import { call, cli, jobIdOf, newClient, seqText, spillPathOf, textOf, workdir, type TestClient } from './helpers.js';
import { until } from '../helpers/until.js';

const work = workdir('mcp-stdio');
let listed: ListedTool[];
let instructions: string;
let tc: TestClient;
let transport: StdioClientTransport;
let stderr = '';

beforeAll(async () => {
  const runtime = await createRuntime();
  listed = runtime.listTools();
  instructions = instructionsOf(runtime);
  await runtime.close();
  tc = newClient('stdio-test');
  transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp', '--cwd', work], stderr: 'pipe' });
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await tc.client.connect(transport);
});

afterAll(async () => {
  await tc.client.close();
  rmSync(work, { recursive: true, force: true });
});

describe('shellring mcp (stdio)', () => {
  it('lists the runtime tools with their exact schemas and honest annotations', async () => {
    const { tools } = await tc.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['bash', 'job_output', 'job_list', 'job_kill', 'job_input']);
    for (const tool of tools) {
      const mine = listed.find((entry) => entry.name === tool.name)!;
      expect(tool.inputSchema).toEqual(mine.inputSchema);
      expect(tool.description).toBe(mine.description);
    }
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));
    expect(byName.bash).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
    expect(byName.job_output).toMatchObject({ readOnlyHint: true });
    expect(byName.job_list).toMatchObject({ readOnlyHint: true });
    expect(byName.job_kill).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it('gives the prompt sections as instructions', () => {
    const text = tc.client.getInstructions();
    expect(text).toBe(instructions);
    expect(text).toContain(BASH_PROMPT);
    expect(tc.client.getServerVersion()?.name).toBe('shellring');
  });

  it('returns a non-zero exit as a result, not an error', async () => {
    const result = await call(tc.client, 'bash', { command: 'echo failing; exit 3', description: 'exit with status three' });
    expect(textOf(result)).toBe('failing\n[exit code: 3]');
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ kind: 'foreground', exitCode: 3, signal: null });
  });

  it('runs in the --cwd directory and keeps both streams', async () => {
    const result = await call(tc.client, 'bash', { command: 'pwd; echo err >&2', description: 'print the working directory' });
    expect(textOf(result)).toBe(`${work}\n[stderr]\nerr\n`);
  });

  it('names a spill file that holds the whole output of a truncated call', async () => {
    const result = await call(tc.client, 'bash', { command: 'seq 1 100000', description: 'print many numbers' });
    const text = textOf(result);
    expect(text).toMatch(/\n99999\n100000\n\[output truncated; full output: /);
    expect(text.length).toBeLessThan(70_000);
    const spill = spillPathOf(text);
    expect(existsSync(spill)).toBe(true);
    expect(readFileSync(spill, 'utf8')).toBe(seqText(100000));
    expect(result.structuredContent).toMatchObject({ stdout: { truncated: true, spillPath: spill } });
  });

  it('reports errors as isError results', async () => {
    const result = await call(tc.client, 'bash', { command: '   ', description: 'run nothing at all' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('Error: invalid command: expected a non-empty string');
    const unknown = await call(tc.client, 'job_output', { job_id: 'bash-999' });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toBe('Error: unknown job bash-999');
  });

  it('runs a background job, notifies on completion, and reads it with job_output', async () => {
    const started = await call(tc.client, 'bash', {
      command: 'echo first; sleep 0.3; echo second',
      description: 'print two lines slowly',
      run_in_background: true,
    });
    const id = jobIdOf(textOf(started));
    const notice = await until(
      () => tc.notices.find((entry) => String(entry.data).startsWith(`background job ${id} `)),
      15_000,
      'the completion notice',
    );
    expect(notice.level).toBe('info');
    expect(notice.logger).toBe('shellring.jobs');
    expect(notice.data).toBe(
      `background job ${id} (bash: echo first; sleep 0.3; echo second) finished [status: completed, exit code: 0]. Read its output with job_output.`,
    );
    const output = await call(tc.client, 'job_output', { job_id: id });
    expect(textOf(output)).toBe('first\nsecond\n[status: completed, exit code: 0]');
    const again = await call(tc.client, 'job_output', { job_id: id });
    expect(textOf(again)).toBe('(no new output)\n[status: completed, exit code: 0]');
  });

  it('kills the command when the client cancels the call', async () => {
    const marker = `31.${process.pid}7`;
    const controller = new AbortController();
    const pending = tc.client.callTool(
      { name: 'bash', arguments: { command: `sleep ${marker}`, description: 'sleep until cancelled' } },
      undefined,
      { signal: controller.signal },
    );
    await until(() => processesWith(`sleep ${marker}`).length > 0, 15_000, 'the command to start');
    controller.abort();
    await expect(pending).rejects.toThrow();
    await until(() => processesWith(`sleep ${marker}`).length === 0, 15_000, 'the command to be killed');
  });

  it('wrote nothing to stderr', () => {
    expect(stderr).toBe('');
  });
});

describe('shellring mcp process', () => {
  it('writes only JSON-RPC to stdout and exits when stdin closes, ending its jobs', async () => {
    const marker = `32.${process.pid}1`;
    const child = spawn(process.execPath, [cli, 'mcp', '--cwd', work], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    const responses = () => out.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { id?: number });
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const bash = (id: number, args: object) =>
      send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'bash', arguments: args } });
    bash(2, { command: 'echo to-stdout; echo to-stderr >&2; seq 1 20000', description: 'print on both streams' });
    bash(3, { command: 'echo quick', description: 'finish in the background', run_in_background: true });
    bash(4, { command: `sleep ${marker}`, description: 'outlive the client', run_in_background: true });
    await until(() => responses().filter((message) => message.id === 4).length === 1, 15_000, 'the responses');
    await until(() => out.includes('notifications/message'), 15_000, 'the completion notice');
    await until(() => processesWith(`sleep ${marker}`).length > 0, 15_000, 'the long job to start');
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdin.end();
    expect(await exited).toBe(0);
    for (const line of out.split('\n').filter(Boolean)) {
      expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    }
    expect(out.endsWith('\n')).toBe(true);
    expect(processesWith(`sleep ${marker}`)).toEqual([]);
  });
});
