// Under Cordis: DSH_SESSION_JSONL comes from the host's sessionPersistence service, and a call without a cwd runs
// in the executor's configured directory.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Context } from 'cordis';
import { afterAll, describe, expect, it } from 'vitest';
import { bashLocal, shellEnv, systemPrompt, toolBash, tools, whenClosed, type ToolRegistry } from '../../src/cordis/index.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-cordis-env-')));
const app = new Context();

function text(result: { content: { text: string }[] }): string {
  return result.content.map((part) => part.text).join('');
}

afterAll(async () => {
  await app.stop();
  await whenClosed(app);
});

describe('Cordis session environment', () => {
  it('sets DSH_SESSION_JSONL from sessionPersistence.locate(), following the service as it comes and goes', async () => {
    app.plugin(tools);
    app.plugin(systemPrompt);
    app.plugin(shellEnv, { dshHome: join(work, '.dsh') });
    app.plugin(bashLocal, { cwd: work, threads: 1 });
    app.plugin(toolBash);
    await app.lifecycle.flush();
    const registry: ToolRegistry = app.get('tools')!;
    const show = { command: 'echo "[${DSH_SESSION_JSONL-unset}]"', description: 'Print the session log path' };
    expect(text(await registry.call('bash', show, { sessionId: 'agent-1' }))).toBe('[unset]\n');

    const located: string[] = [];
    const dispose = app.set('sessionPersistence', {
      locate: (sessionId: string) => {
        located.push(sessionId);
        return sessionId === 'agent-1' ? join(work, 'sessions', 'agent-1.jsonl') : undefined;
      },
    });
    expect(text(await registry.call('bash', show, { sessionId: 'agent-1' }))).toBe(`[${join(work, 'sessions', 'agent-1.jsonl')}]\n`);
    expect(text(await registry.call('bash', show, { sessionId: 'agent-2' }))).toBe('[unset]\n');
    expect(located).toEqual(['agent-1', 'agent-2']);

    // A failing backend, or one that answers a relative path, leaves the hint out instead of failing the command.
    dispose();
    app.set('sessionPersistence', {
      locate: () => {
        throw new Error('store offline');
      },
    });
    expect(text(await registry.call('bash', show, { sessionId: 'agent-1' }))).toBe('[unset]\n');
  });

  it('runs a call without a cwd in the executor’s configured directory', async () => {
    const registry: ToolRegistry = app.get('tools')!;
    expect(text(await registry.call('bash', { command: 'pwd', description: 'Print the directory' }, { sessionId: 'agent-3' }))).toBe(
      `${work}\n`,
    );
    expect(text(await registry.call('bash', { command: 'pwd', description: 'Print the directory' }, null as never))).toBe(
      'Error: invalid call context: expected an object, got null',
    );
  });
});
