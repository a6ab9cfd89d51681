// The sandboxing executor plugin: tool-bash confines calls, advertises escalation, and asks the approval service
// (for an escalation, and for a host the domain network policy does not list).
import { existsSync, mkdtempSync, realpathSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Context } from 'cordis';
import { afterAll, describe, expect, it } from 'vitest';
import { bashSandbox, shellEnv, systemPrompt, toolBash, tools, whenClosed, type ToolRegistry } from '../../src/cordis/index.js';
import type { ApprovalRequest } from '../../src/index.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-cordis-sbx-')));
const session = { sessionId: 'cordis-sandbox', cwd: work };
const app = new Context();

afterAll(async () => {
  await app.stop();
  await whenClosed(app);
});

describe('bash-sandbox plugin', () => {
  it('confines bash calls and escalates one call after approval', async () => {
    const asked: string[] = [];
    app.plugin(tools);
    app.plugin(systemPrompt);
    app.plugin(shellEnv, { dshHome: join(work, '.dsh') });
    app.plugin(bashSandbox, { mode: 'read-only' });
    app.plugin(toolBash);
    app.set('approval', {
      request: async (request: ApprovalRequest) => {
        asked.push(request.reason);
        return 'allowed-once' as const;
      },
    });
    await app.lifecycle.flush();
    const registry: ToolRegistry = app.get('tools')!;
    const schema = registry.list().find((tool) => tool.name === 'bash')!.inputSchema.properties as Record<string, unknown>;
    expect(Object.keys(schema)).toContain('sandbox_permissions');

    const denied = await registry.call('bash', { command: 'echo x > f.txt', description: 'Write a file' }, session);
    expect(denied.content[0]!.text).toContain('[sandbox: file access denied under read-only mode]');
    expect(existsSync(join(work, 'f.txt'))).toBe(false);

    const granted = await registry.call(
      'bash',
      { command: 'echo x > f.txt', description: 'Write a file', sandbox_permissions: 'workspace-write', justification: 'The task writes f.txt.' },
      session,
    );
    expect(granted.content[0]!.text).toBe('(no output)');
    expect(existsSync(join(work, 'f.txt'))).toBe(true);
    expect(asked).toEqual(['escalate sandbox to workspace-write: The task writes f.txt.']);
  });
});

describe('bash-sandbox plugin with network by name', () => {
  it("puts a host its domain policy does not list to the host's approval service", async () => {
    const web = createServer((req, res) => res.end(`hello ${req.url}\n`));
    const port = await new Promise<number>((resolve) => web.listen(0, '127.0.0.1', () => resolve((web.address() as { port: number }).port)));
    const asked: ApprovalRequest[] = [];
    const netApp = new Context();
    try {
      netApp.plugin(tools);
      netApp.plugin(systemPrompt);
      netApp.plugin(shellEnv, { dshHome: join(work, '.dsh-net') });
      netApp.plugin(bashSandbox, {
        mode: 'workspace-write',
        network: { mode: 'domains', ask: true, testHostMap: { 'asked.test': '127.0.0.1', 'refused.test': '127.0.0.1' } },
      });
      netApp.plugin(toolBash);
      netApp.set('approval', {
        request: async (request: ApprovalRequest) => {
          asked.push(request);
          return request.kind === 'network' && request.host === 'asked.test' ? ('allowed-once' as const) : ('rejected' as const);
        },
      });
      await netApp.lifecycle.flush();
      const registry: ToolRegistry = netApp.get('tools')!;
      const curl = (host: string) => registry.call('bash', { command: `curl -sS http://${host}:${port}/x`, description: 'Fetch' }, { sessionId: 'cordis-net', cwd: work });
      expect((await curl('asked.test')).content[0]!.text).toBe('hello /x\n');
      expect((await curl('refused.test')).content[0]!.text).toMatch(new RegExp(`\\[network: blocked refused\\.test:${port} — not in the allowed hosts; a person refused it\\]$`));
      expect(asked.map((request) => request.kind === 'network' && [request.sessionId, request.host, request.port])).toEqual([
        ['cordis-net', 'asked.test', port],
        ['cordis-net', 'refused.test', port],
      ]);
    } finally {
      await netApp.stop();
      await whenClosed(netApp);
      web.close();
    }
  });
});
