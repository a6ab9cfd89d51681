// What every face shows a model, pinned byte for byte: the tools/list JSON and instructions of both MCP revisions
// (served in-process over the stdio face's streams), the runtime's listing and prompt sections, and the Cordis
// plugins' tools and prompt, per configuration. tool-listings.json is the record; a change to it is a contract change.
import { PassThrough } from 'node:stream';
import { rmSync } from 'node:fs';
import { Context } from 'cordis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, type RuntimeOptions } from '../../src/index.js';
import { serveStdio } from '../../src/faces/mcp/index.js';
import { bashLocal, jobsLocal, shellEnv, systemPrompt, toolBash, toolJobs, tools, whenClosed, type PromptRegistry, type ToolRegistry } from '../../src/cordis/index.js';
import { workdir } from './helpers.js';

const work = workdir('listings');
const WORK = '<workspace>';

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Paths of this run are replaced, so the record holds no machine's directories. */
function portable(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value).replaceAll(work, WORK));
}

const ENVELOPE = (capabilities: Record<string, unknown>) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'listing-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': capabilities,
});

/** A JSON-RPC peer over the stdio face's own streams: requests out, replies matched by id. */
async function stdioPeer(options: Parameters<typeof serveStdio>[0]) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const server = await serveStdio({ ...options, stdin, stdout, cwd: work });
  const waiting = new Map<number, (reply: Record<string, unknown>) => void>();
  let buffered = '';
  stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>;
      buffered = buffered.slice(newline + 1);
      if (typeof message.id === 'number') waiting.get(message.id)?.(message);
    }
  });
  let next = 1;
  return {
    request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
      const id = next++;
      const reply = new Promise<Record<string, unknown>>((resolve) => waiting.set(id, resolve));
      stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      return reply;
    },
    notify(method: string): void {
      stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
    },
    close: () => server.close(),
  };
}

async function legacy(options: Parameters<typeof serveStdio>[0], capabilities: Record<string, unknown>) {
  const peer = await stdioPeer(options);
  try {
    const init = await peer.request('initialize', { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'listing-test', version: '1.0.0' } });
    peer.notify('notifications/initialized');
    const list = await peer.request('tools/list', {});
    return { instructions: (init.result as { instructions: string }).instructions, tools: (list.result as { tools: unknown[] }).tools };
  } finally {
    await peer.close();
  }
}

async function modern(options: Parameters<typeof serveStdio>[0], capabilities: Record<string, unknown>) {
  const peer = await stdioPeer(options);
  try {
    const discover = await peer.request('server/discover', { _meta: ENVELOPE(capabilities) });
    const list = await peer.request('tools/list', { _meta: ENVELOPE(capabilities) });
    return { instructions: (discover.result as { instructions?: string } | undefined)?.instructions, tools: (list.result as { tools: unknown[] }).tools };
  } finally {
    await peer.close();
  }
}

const POLICY: RuntimeOptions['policy'] = { rules: [{ decision: 'ask', command: ['id'], message: 'looking up users needs a person' }] };

const MCP_CONFIGS: [string, Parameters<typeof serveStdio>[0]][] = [
  ['default', {}],
  ['jobs: false', { runtimeOptions: { jobs: false } }],
  ['promoteOnTimeout: false', { runtimeOptions: { promoteOnTimeout: false } }],
  ['read-only sandbox with a policy', { sandboxMode: 'read-only', runtimeOptions: { policy: POLICY } }],
];

const RUNTIME_CONFIGS: [string, RuntimeOptions][] = [
  ['default', {}],
  ['enableRunInBackground: false', { enableRunInBackground: false }],
  ['promoteOnTimeout: false', { promoteOnTimeout: false }],
  ['jobs: false', { jobs: false }],
  ['policy', { policy: POLICY }],
];

async function cordisApp(withJobs: boolean) {
  const ctx = new Context();
  ctx.plugin(tools);
  ctx.plugin(systemPrompt);
  ctx.plugin(shellEnv, { dshHome: work });
  ctx.plugin(bashLocal, { cwd: work, threads: 1 });
  if (withJobs) ctx.plugin(jobsLocal);
  ctx.plugin(toolBash);
  ctx.plugin(toolJobs);
  await ctx.lifecycle.flush();
  const registry: ToolRegistry = ctx.get('tools')!;
  const prompt: PromptRegistry = ctx.get('systemPrompt')!;
  const shown = { tools: registry.list(), sections: prompt.sections(), prompt: prompt.render() };
  await ctx.stop();
  await whenClosed(ctx);
  return shown;
}

describe('what every face lists', () => {
  it.each(MCP_CONFIGS)('MCP 2025-11-25 and 2026-07-28 over stdio (%s)', async (name, options) => {
    const shown = {
      '2025-11-25': await legacy(options, {}),
      '2025-11-25 eliciting': await legacy(options, { elicitation: { form: {} } }),
      '2026-07-28': await modern(options, {}),
      '2026-07-28 eliciting': await modern(options, { elicitation: { form: {} } }),
    };
    await expect(JSON.stringify(portable(shown), null, 1)).toMatchFileSnapshot(`listings/mcp-${name.replace(/[^a-z0-9]+/gi, '-')}.json`);
  });

  it.each(RUNTIME_CONFIGS)('the runtime (%s)', async (name, options) => {
    const runtime = await createRuntime({ ...options, executor: { threads: 1 } });
    try {
      const session = runtime.session({ id: 'listing', cwd: work });
      const shown = { tools: runtime.listTools(), sections: runtime.promptSections(), session: { tools: session.listTools(), sections: session.promptSections() } };
      await expect(JSON.stringify(portable(shown), null, 1)).toMatchFileSnapshot(`listings/runtime-${name.replace(/[^a-z0-9]+/gi, '-')}.json`);
    } finally {
      await runtime.close();
    }
  });

  it.each([
    ['with jobs', true],
    ['without jobs', false],
  ])('the Cordis plugins (%s)', async (name, withJobs) => {
    const shown = await cordisApp(withJobs);
    await expect(JSON.stringify(portable(shown), null, 1)).toMatchFileSnapshot(`listings/cordis-${name.replace(/[^a-z0-9]+/gi, '-')}.json`);
  });
});
