// The sandboxing executor plugin: tool-bash confines calls, advertises escalation, and asks the approval service.
import { existsSync, mkdtempSync, realpathSync } from 'node:fs';
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
