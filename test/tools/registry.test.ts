// The one tool table: every face lists exactly its entries, and a tool added with one line of a table (its entry
// written in a file of its own, here this test) is listed and called by the runtime, both MCP revisions through
// their SDK clients over in-memory transports, and the Cordis plugins.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Context } from 'cordis';
import { z } from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as LegacyMemory } from '@modelcontextprotocol/sdk/inMemory.js';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { InMemoryTransport as ModernMemory } from '@modelcontextprotocol/server';
import { serveStdio as serveModern } from '@modelcontextprotocol/server/stdio';
import { Runtime } from '../../src/runtime/runtime.js';
import { TOOLS } from '../../src/tools/registry.js';
import { textResult } from '../../src/tools/tool.js';
import type { ToolSpec } from '../../src/tools/spec.js';
import { createMcpServer, SessionRoutes, TOOL_ANNOTATIONS } from '../../src/faces/mcp/index.js';
import { ModernFace } from '../../src/faces/mcp/modern/face.js';
import { modernTools } from '../../src/faces/mcp/modern/listing.js';
import { StateCodec } from '../../src/faces/mcp/modern/request-state.js';
import { ModernStates } from '../../src/faces/mcp/modern/states.js';
import { bashLocal, jobsLocal, shellEnv, systemPrompt, toolBash, toolJobs, tools, whenClosed, type ToolRegistry } from '../../src/cordis/index.js';
import { pluginTools, registerPrompts, registerTools } from '../../src/cordis/table.js';
import { workdir } from '../faces/helpers.js';

const work = workdir('registry');

/** A throwaway tool, as a new tool's own file would write it. */
const echoArgs: ToolSpec = {
  name: 'echo_args',
  annotations: { title: 'Echo the arguments', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  needs: [],
  prompt: () => ({ name: 'tool:echo', order: 1020, text: 'echo_args repeats what it is given.' }),
  build: () => ({
    definitionFor: () => ({
      name: 'echo_args',
      description: 'Repeat the word you pass.',
      schema: z.looseObject({ word: z.string() }),
      outputSchema: z.looseObject({ word: z.string() }),
    }),
    call: async (input, context) => textResult(`${(input as { word: string }).word} from ${context.sessionId}`, { word: (input as { word: string }).word }),
  }),
};

/** One that only the 2026 face offers, beside session_open. */
const modernOnly: ToolSpec = {
  ...echoArgs,
  name: 'echo_modern',
  only: 'mcp-2026',
  prompt: undefined,
  build: () => {
    const echo = echoArgs.build({});
    return { ...echo, definitionFor: () => ({ ...echo.definitionFor(undefined), name: 'echo_modern' }) };
  },
};

// The one line a new tool adds to the registry, in a table built for this test.
const TABLE: readonly ToolSpec[] = [...TOOLS, echoArgs, modernOnly];

const runtimes: Runtime[] = [];
function runtime(table?: readonly ToolSpec[]): Runtime {
  const created = new Runtime({ executor: { threads: 1 } }, table);
  runtimes.push(created);
  return created;
}

afterAll(async () => {
  await Promise.all(runtimes.map((created) => created.close()));
});

const offeredEverywhere = (table: readonly ToolSpec[]) => table.filter((spec) => spec.only === undefined).map((spec) => spec.name);

type Call = { name: string; arguments: Record<string, unknown> };
type Listed = { name: string; annotations?: unknown; inputSchema: { properties?: Record<string, unknown> } };

/** What both SDKs' clients offer alike. */
interface ToolClient {
  listTools(): Promise<{ tools: Listed[] }>;
  callTool(call: Call): Promise<unknown>;
  close(): Promise<void>;
}

/** Lists, makes `call` if given, then closes the client and the server. */
async function listAndCall(client: ToolClient, call: Call | undefined, closeServer: () => Promise<void>) {
  try {
    const { tools: listed } = await client.listTools();
    const result = call ? ((await client.callTool(call)) as { structuredContent?: unknown }) : undefined;
    return { listed, result };
  } finally {
    await client.close();
    await closeServer();
  }
}

async function legacyListing(rt: Runtime, call?: Call) {
  const session = rt.session({ id: 'legacy', cwd: work });
  const server = createMcpServer({ runtime: rt, session, routes: new SessionRoutes() });
  const [clientSide, serverSide] = LegacyMemory.createLinkedPair();
  await server.connect(serverSide);
  const client = new LegacyClient({ name: 'registry-test', version: '1.0.0' });
  await client.connect(clientSide);
  return listAndCall(client, call, () => server.close());
}

async function modernListing(rt: Runtime, call?: Call) {
  const states = new ModernStates({ runtime: rt, routes: new SessionRoutes(), instanceId: 'test', cwd: work });
  const face = new ModernFace({ runtime: rt, states, codec: new StateCodec('test') });
  const [clientSide, serverSide] = ModernMemory.createLinkedPair();
  const handle = serveModern(() => face.server(() => 'tester'), { legacy: 'reject', transport: serverSide });
  const client = new ModernClient({ name: 'registry-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(clientSide);
  return listAndCall(client, call, async () => {
    await handle.close();
    await states.closeAll();
  });
}

async function cordisNames(): Promise<string[]> {
  const ctx = new Context();
  ctx.plugin(tools);
  ctx.plugin(systemPrompt);
  ctx.plugin(shellEnv, { dshHome: work });
  ctx.plugin(bashLocal, { cwd: work, threads: 1 });
  ctx.plugin(jobsLocal);
  ctx.plugin(toolBash);
  ctx.plugin(toolJobs);
  await ctx.lifecycle.flush();
  const registry: ToolRegistry = ctx.get('tools')!;
  const names = registry.list().map((tool) => tool.name);
  await ctx.stop();
  await whenClosed(ctx);
  return names;
}

describe('every face lists the registry', () => {
  it('the runtime, MCP 2025-11-25 and the Cordis plugins list the entries offered everywhere; 2026-07-28 adds its own', async () => {
    const rt = runtime();
    const everywhere = offeredEverywhere(TOOLS);
    expect(everywhere).toEqual(['bash', 'job_output', 'job_list', 'job_kill', 'job_input']);
    expect(rt.listTools().map((tool) => tool.name)).toEqual(everywhere);
    expect((await legacyListing(rt)).listed.map((tool) => tool.name)).toEqual(everywhere);
    expect((await modernListing(rt)).listed.map((tool) => tool.name)).toEqual([...everywhere, 'session_open']);
    expect((await cordisNames()).sort()).toEqual([...everywhere].sort());
    expect([...pluginTools('tool-bash'), ...pluginTools('tool-jobs')].map((spec) => spec.name).sort()).toEqual([...everywhere].sort());
    expect(Object.keys(TOOL_ANNOTATIONS)).toEqual(TOOLS.map((spec) => spec.name));
  });

  it('states each entry\'s annotations in both MCP listings', async () => {
    const rt = runtime();
    for (const listed of [(await legacyListing(rt)).listed, (await modernListing(rt)).listed]) {
      for (const tool of listed) expect(tool.annotations, tool.name).toEqual(TOOLS.find((spec) => spec.name === tool.name)!.annotations);
    }
  });
});

describe('a tool added with one line of the table', () => {
  it('is listed and called by the runtime, with its prompt section in order', async () => {
    const rt = runtime(TABLE);
    expect(rt.listTools().map((tool) => tool.name)).toEqual(['bash', 'job_output', 'job_list', 'job_kill', 'job_input', 'echo_args']);
    expect(rt.listTools()[5]).toMatchObject({ description: 'Repeat the word you pass.', inputSchema: { properties: { word: { type: 'string' } } } });
    expect(rt.promptSections().map((section) => section.name)).toEqual(['tool:bash', 'tool:jobs', 'tool:echo']);
    const session = rt.session({ id: 'echoer', cwd: work });
    expect((await session.callTool('echo_args', { word: 'hello' })).content[0]!.text).toBe('hello from echoer');
    // A tool only a face offers is neither listed nor callable in the runtime.
    expect((await session.callTool('echo_modern', { word: 'x' })).content[0]!.text).toBe('Error: unknown tool "echo_modern"');
    expect(rt.session({ id: 'restricted', cwd: work, tools: ['echo_args'] }).listTools().map((tool) => tool.name)).toEqual(['echo_args']);
  });

  it('is listed and called over MCP 2025-11-25 (SDK client, in-memory transport)', async () => {
    const { listed, result } = await legacyListing(runtime(TABLE), { name: 'echo_args', arguments: { word: 'legacy' } });
    expect(listed.map((tool) => tool.name)).toEqual(['bash', 'job_output', 'job_list', 'job_kill', 'job_input', 'echo_args']);
    expect(listed[5]!.annotations).toEqual(echoArgs.annotations);
    expect(result!.structuredContent).toEqual({ word: 'legacy' });
  });

  it('is listed (with the session handle argument) and called over MCP 2026-07-28, beside the face-only entries', async () => {
    const { listed, result } = await modernListing(runtime(TABLE), { name: 'echo_modern', arguments: { word: 'modern' } });
    expect(listed.map((tool) => tool.name)).toEqual(['bash', 'job_output', 'job_list', 'job_kill', 'job_input', 'echo_args', 'session_open', 'echo_modern']);
    expect(listed[5]!.inputSchema.properties).toHaveProperty('session');
    expect(listed[7]!.inputSchema.properties).not.toHaveProperty('session');
    expect(result!.structuredContent).toEqual({ word: 'modern' });
  });

  it('is registered by the Cordis tool plugin its needs put it in', async () => {
    expect(pluginTools('tool-bash', TABLE).map((spec) => spec.name)).toEqual(['bash', 'echo_args']);
    expect(pluginTools('tool-jobs', TABLE).map((spec) => spec.name)).toEqual(['job_output', 'job_list', 'job_kill', 'job_input']);
    const ctx = new Context();
    ctx.plugin(tools);
    ctx.plugin(systemPrompt);
    ctx.plugin({
      name: 'echo-tools',
      inject: ['tools', 'systemPrompt'],
      apply: (inner: Context) => {
        const specs = pluginTools('tool-bash', TABLE).filter((spec) => spec.name === 'echo_args');
        registerPrompts(inner, specs);
        inner.effect(() => registerTools(inner, specs, {}));
      },
    });
    await ctx.lifecycle.flush();
    const registry: ToolRegistry = ctx.get('tools')!;
    expect(registry.list().map((tool) => tool.name)).toEqual(['echo_args']);
    expect((await registry.call('echo_args', { word: 'cordis' }, { sessionId: 'host' })).content[0]!.text).toBe('cordis from host');
    expect(ctx.get('systemPrompt')!.sections().map((section) => section.name)).toEqual(['tool:echo']);
    await ctx.stop();
  });
});

describe('the texts a listing carries', () => {
  /** The contract's source, with quotes unescaped, so a text can be found in it as the model reads it. */
  const contract = readdirSync(join(import.meta.dirname, '../../src/contract'))
    .map((file) => readFileSync(join(import.meta.dirname, '../../src/contract', file), 'utf8'))
    .join('\n')
    .replaceAll("\\'", "'")
    .replaceAll('\\`', '`');

  function texts(node: unknown): string[] {
    if (Array.isArray(node)) return node.flatMap(texts);
    if (node === null || typeof node !== 'object') return [];
    return Object.entries(node).flatMap(([key, value]) =>
      (key === 'description' || key === 'title') && typeof value === 'string' ? [value] : texts(value),
    );
  }

  it('are all written in src/contract/ (every description and title of both MCP listings)', async () => {
    const rt = runtime();
    const listed = [(await legacyListing(rt)).listed, modernTools(rt, rt.session({ id: 'texts', cwd: work }))];
    const found = texts(listed);
    expect(found.length).toBeGreaterThan(40);
    // The bash description is composed of paragraphs, each a contract text; a configured figure is rendered into
    // its text, so the words on either side of a number are each the contract's.
    const outside = found.filter((text) => !text.split(/\n\n|\d+/).every((part) => contract.includes(part)));
    expect(outside).toEqual([]);
    // The check sees a text that is not there.
    expect(texts([{ description: 'a text written somewhere else' }]).filter((text) => !contract.includes(text))).toHaveLength(1);
  });
});
