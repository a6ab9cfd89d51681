// MCP Inspector 2.12's CLI (installed apart by install.sh, on the Node 22 line it needs) against both revisions, over
// stdio (`shellring mcp`) and HTTP (`serveHttp`): its default era (2025-11-25) and `--protocol-era modern`
// (2026-07-28). The listing passes its schema-portability check (--strict), and every result it takes passes its
// own validation against the tool's outputSchema: a foreground call, a background job (a task under 2026, whose
// result must be bash's), a promoted call, and the job tools.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp, type HttpServer } from '../../src/faces/mcp/index.js';
import { cli, workdir } from '../faces/helpers.js';
import { assertConforms } from '../helpers/output-schemas.js';
import { inspector, inspectorNode, installClients, run } from './helpers.js';

const work = workdir('inspector');
/** The Inspector keeps a catalog and client config under HOME: a home of its own, removed after. */
const home = join(work, '.home');
let server: HttpServer;

beforeAll(async () => {
  await installClients();
  mkdirSync(home);
  server = await serveHttp({ port: 0, cwd: work });
}, 900_000);

afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

type Era = 'default' | 'modern';
type Kind = 'stdio' | 'http';

/** Runs the Inspector's CLI once against one face in one era; its one JSON object on stdout, and its exit status. */
async function inspect(kind: Kind, era: Era, args: string[]): Promise<{ status: number; out: Record<string, any>; stderr: string }> {
  const target = kind === 'stdio' ? [process.execPath, cli, 'mcp', '--cwd', work] : ['--server-url', server.url, '--header', `Authorization: Bearer ${server.token}`];
  const eraArgs = era === 'modern' ? ['--protocol-era', 'modern'] : [];
  const result = await run(inspectorNode, [inspector, '--cli', ...eraArgs, '--format', 'json', ...args, ...target], 120_000, { PATH: process.env.PATH, HOME: home });
  let out: Record<string, any> = {};
  try {
    out = JSON.parse(result.stdout) as Record<string, any>;
  } catch {
    // Reported by the status check below, with what it printed.
  }
  return { status: result.status, out, stderr: `${result.stdout}\n${result.stderr}` };
}

const callArgs = (tool: string, args: Record<string, unknown>) => ['--method', 'tools/call', '--tool-name', tool, '--tool-args-json', JSON.stringify(args)];

describe.each([
  ['stdio', 'default'],
  ['stdio', 'modern'],
  ['http', 'default'],
  ['http', 'modern'],
] as [Kind, Era][])('MCP Inspector 2.12 over %s, %s era', (kind, era) => {
  let tools: { name: string; outputSchema?: Record<string, unknown> }[];

  /** A call the Inspector accepted (it validates the result against the tool's outputSchema), checked here too. */
  async function called(tool: string, args: Record<string, unknown>) {
    const { status, out, stderr } = await inspect(kind, era, callArgs(tool, args));
    expect(status, stderr).toBe(0);
    assertConforms(tools, tool, out.result);
    return out.result as { content: { text: string }[]; structuredContent: Record<string, unknown> };
  }

  beforeAll(async () => {
    const { status, out, stderr } = await inspect(kind, era, ['--method', 'tools/list', '--strict']);
    expect(status, stderr).toBe(0);
    tools = out.result.tools;
  }, 120_000);

  it('lists the tools with no schema-portability problem', () => {
    expect(tools.map((tool) => tool.name)).toEqual(era === 'modern' ? ['bash', 'job_output', 'job_list', 'job_kill', 'job_input', 'session_open'] : ['bash', 'job_output', 'job_list', 'job_kill', 'job_input']);
  });

  it('takes a foreground result', async () => {
    const result = await called('bash', { command: 'echo failing; exit 3', description: 'exit with status three' });
    expect(result.content[0]!.text).toBe('failing\n[exit code: 3]');
    expect(result.structuredContent).toMatchObject({ kind: 'foreground', exitCode: 3 });
  }, 120_000);

  it("takes a background job: its start, or under 2026 its task's result as bash's", async () => {
    const result = await called('bash', { command: 'echo one; echo two', description: 'print two lines', run_in_background: true });
    if (era === 'modern') {
      expect(result.content[0]!.text).toBe('one\ntwo\n[status: completed, exit code: 0]');
      expect(result.structuredContent).toMatchObject({ kind: 'background', unreadBytes: 0, job: { state: 'completed' } });
    } else {
      expect(result.content[0]!.text).toMatch(/^started background job bash-\d+$/);
      expect(result.structuredContent).toMatchObject({ kind: 'background' });
    }
  }, 120_000);

  it('takes a promoted call, and the job tools', async () => {
    // Generous: `early` must be out before the timeout however loaded the host.
    const result = await called('bash', { command: 'echo early; sleep 3; echo late', description: 'outlive the timeout', timeoutMs: 2_000 });
    expect(result.structuredContent).toMatchObject({ kind: 'promoted', timeoutMs: 2_000, output: 'early\n' });
    if (era === 'modern') expect(result.content[0]!.text).toBe('early\nlate\n[status: completed, exit code: 0]');
    else expect(result.content[0]!.text).toMatch(/^early\n\[still running after 2000ms; moved to background job bash-\d+\]\nThe command keeps running in the background\. You will be notified/);
    // Each CLI run is a fresh client, and over stdio a fresh server: the job tools answer on what that one holds.
    expect((await called('job_list', {})).content[0]!.text).toBeTypeOf('string');
  }, 120_000);
});
