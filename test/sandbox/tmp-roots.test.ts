// The per-session temp directories of a runtime that died by SIGKILL: its `shellring-tmp-*` root is removed by the
// next runtime that confines commands (off the event loop), while a live runtime's root is left alone.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/index.js';
import { bash, text } from '../helpers/calls.js';
import { until } from '../helpers/until.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-tmproots-')));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('temp roots of dead runtimes', () => {
  it('removes a SIGKILLed runtime\'s temp root with its files, and keeps a live one\'s', async () => {
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { createRuntime } = await import(${JSON.stringify(new URL('../../dist/src/index.js', import.meta.url).href)});
         const runtime = await createRuntime({ sandbox: { mode: 'workspace-write' } });
         const result = await runtime.session({ id: 'victim', cwd: ${JSON.stringify(work)} }).callTool('bash', {
           command: 'echo left-behind > "$TMPDIR/secret.txt"; echo "$TMPDIR"', description: 'leave a file in the temp dir' });
         process.stdout.write(result.content[0].text);
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const dead = dirname(await until(() => out.includes('\n') && out.trim(), 30_000, 'the child\'s TMPDIR'));
    expect(dead).toMatch(/\/shellring-tmp-[^/]+$/);
    expect(readFileSync(join(dead, 'session-1', 'secret.txt'), 'utf8')).toBe('left-behind\n');
    expect(existsSync(join(dead, '.lock'))).toBe(true);

    // A live runtime with a temp root of its own.
    const live = await createRuntime({ sandbox: { mode: 'workspace-write' } });
    try {
      const liveRoot = dirname(text(await bash(live.session({ id: 'live', cwd: work }), 'echo "$TMPDIR"')).trim());
      // While the child lives, a new runtime leaves its root alone.
      const early = await createRuntime({ sandbox: { mode: 'workspace-write' }, executor: { spillRoot: work } });
      await early.close();
      expect(existsSync(dead)).toBe(true);

      child.kill('SIGKILL');
      await exited;
      // The spill root lives elsewhere, so only the sandbox's own sweep can remove the temp root.
      const next = await createRuntime({ sandbox: { mode: 'workspace-write' }, executor: { spillRoot: work } });
      try {
        await until(() => !existsSync(dead), 30_000, 'the dead runtime\'s temp root to go');
        expect(existsSync(liveRoot)).toBe(true);
        expect(text(await bash(live.session({ id: 'live', cwd: work }), 'echo ok > "$TMPDIR/f" && cat "$TMPDIR/f"'))).toBe('ok\n');
      } finally {
        await next.close();
      }
    } finally {
      child.kill('SIGKILL');
      await live.close();
    }
  }, 90_000);
});
