// The main thread makes no synchronous filesystem call while a call runs or a new session makes its first call.
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syncBuiltinESMExports } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { bash, text } from '../helpers/calls.js';
import { runtimes } from '../helpers/runtimes.js';

const open = runtimes();
const work = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), 'shellring-main-thread-fs-')));

/** Counts every `fs.*Sync` call made on this thread (ESM importers included) until the returned stop is called. */
function countSyncCalls(): { calls: string[]; stop: () => void } {
  const calls: string[] = [];
  const originals = new Map<string, (...args: unknown[]) => unknown>();
  const table = fs as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of Object.keys(fs)) {
    if (!name.endsWith('Sync') || typeof table[name] !== 'function') continue;
    const original = table[name]!;
    originals.set(name, original);
    table[name] = function (this: unknown, ...args: unknown[]) {
      calls.push(`${name}(${String(args[0])})`);
      return original.apply(this, args);
    };
  }
  syncBuiltinESMExports();
  return {
    calls,
    stop: () => {
      for (const [name, original] of originals) table[name] = original;
      syncBuiltinESMExports();
    },
  };
}

let counting: ReturnType<typeof countSyncCalls> | undefined;
afterEach(() => counting?.stop());

describe('the main thread and the filesystem', () => {
  it('counts calls made through named imports (the counter itself can fail)', () => {
    counting = countSyncCalls();
    fs.existsSync('/');
    expect(counting.calls).toEqual(['existsSync(/)']);
  });

  for (const [name, options] of [
    ['defaults', {}],
    ['session limits (cgroups)', { executor: { limits: { processes: 500, memoryBytes: 1 << 30, cpuWeight: 100 } } }],
    ['confined, workspace-write', { sandbox: { mode: 'workspace-write' } }],
  ] as const) {
    it(`makes none during a warm call and a new session's first call (${name})`, async () => {
      const runtime = await open(options);
      // Opening a session is synchronous by its API (runtime.session() pins the workspace root then); its calls are not.
      const warm = runtime.session({ id: 'warm', cwd: work });
      const fresh = runtime.session({ id: 'fresh', cwd: work });
      expect(text(await bash(warm, 'echo first'))).toBe('first\n');

      counting = countSyncCalls();
      expect(text(await bash(warm, 'echo again'))).toBe('again\n');
      expect(text(await bash(fresh, 'head -c 200000 /dev/zero | tr "\\0" x; echo'))).toContain('[output truncated; full output: /');
      expect(text(await bash(fresh, 'echo x', { workdir: '/nonexistent-dir' }))).toContain("ENOENT: no such file or directory, chdir '/nonexistent-dir'");
      counting.stop();
      expect(counting.calls.join("\n")).toBe("");
    });
  }
});
