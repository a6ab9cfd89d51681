// What a face shows a model, for the listing tests: the stdio face served in-process over its own streams, with the
// instructions and tools/list of MCP 2025-11-25 (after initialize) and 2026-07-28 (per-request envelope); and the
// tools and prompt of a Cordis app composed of shellring's plugins.
import { PassThrough } from 'node:stream';
import { Context } from 'cordis';
import { serveStdio } from '../../src/faces/mcp/index.js';
import { bashLocal, bashSandbox, jobsLocal, shellEnv, systemPrompt, toolBash, toolJobs, tools, whenClosed, type PromptRegistry, type ToolRegistry } from '../../src/cordis/index.js';
import type { BashToolConfig } from '../../src/tools/bash-config.js';
import type { JobRegistryOptions } from '../../src/jobs/options.js';

const ENVELOPE = (capabilities: Record<string, unknown>) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'listing-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': capabilities,
});

/** A JSON-RPC peer over the stdio face's own streams: requests out, replies matched by id. */
async function stdioPeer(options: Parameters<typeof serveStdio>[0]) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const server = await serveStdio({ ...options, stdin, stdout });
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

/** What a 2025-11-25 client is shown: the instructions of its initialize, and its tools/list. */
export async function legacyListing(options: Parameters<typeof serveStdio>[0], capabilities: Record<string, unknown>) {
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

/** What a 2026-07-28 client is shown: the instructions of server/discover, and its tools/list. */
export async function modernListing(options: Parameters<typeof serveStdio>[0], capabilities: Record<string, unknown>) {
  const peer = await stdioPeer(options);
  try {
    const discover = await peer.request('server/discover', { _meta: ENVELOPE(capabilities) });
    const list = await peer.request('tools/list', { _meta: ENVELOPE(capabilities) });
    return { instructions: (discover.result as { instructions?: string } | undefined)?.instructions, tools: (list.result as { tools: unknown[] }).tools };
  } finally {
    await peer.close();
  }
}

export interface CordisSetup {
  dshHome: string;
  /** bash-local's config, or with `sandbox` bash-sandbox's (its executor fields and these). */
  executor: Record<string, unknown>;
  sandbox?: Record<string, unknown>;
  /** jobs-local's config; false composes none. */
  jobs: JobRegistryOptions | false;
  toolBash?: Partial<BashToolConfig>;
}

/** The tools and prompt a Cordis app composed of shellring's plugins shows. */
export async function cordisListing(setup: CordisSetup) {
  const ctx = new Context();
  ctx.plugin(tools);
  ctx.plugin(systemPrompt);
  ctx.plugin(shellEnv, { dshHome: setup.dshHome });
  if (setup.sandbox) ctx.plugin(bashSandbox, { ...setup.executor, ...setup.sandbox });
  else ctx.plugin(bashLocal, setup.executor);
  if (setup.jobs !== false) ctx.plugin(jobsLocal, setup.jobs);
  ctx.plugin(toolBash, setup.toolBash ?? {});
  ctx.plugin(toolJobs);
  await ctx.lifecycle.flush();
  const registry: ToolRegistry = ctx.get('tools')!;
  const prompt: PromptRegistry = ctx.get('systemPrompt')!;
  const shown = { tools: registry.list(), sections: prompt.sections(), prompt: prompt.render() };
  await ctx.stop();
  await whenClosed(ctx);
  return shown;
}
