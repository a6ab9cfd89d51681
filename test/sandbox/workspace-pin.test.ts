// Workspace roots: pinned at session open (a later symlink swap moves nothing), never nested in another live
// session's workspace, never holding the runtime's own code. Both backends, real commands.
import { existsSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/index.js';
import { packageRoot } from '../../src/native/loader.js';
import { bash, text } from '../helpers/calls.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-pin-')));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.each(['landlock', 'bubblewrap'] as const)('workspace roots under %s', (backend) => {
  let runtime: Runtime | undefined;
  afterEach(async () => {
    await runtime?.close();
    runtime = undefined;
  });
  const open = () => createRuntime({ sandbox: { mode: 'workspace-write', backend } });
  const dir = (...parts: string[]) => {
    const path = join(work, backend, ...parts);
    mkdirSync(path, { recursive: true });
    return path;
  };

  it('pins the root at open: swapping the symlink the session was opened through moves no write', async () => {
    const real = dir('a', 'real');
    const victim = dir('a', 'victim');
    const link = join(work, backend, 'a', 'link');
    symlinkSync(real, link);
    runtime = await open();
    const session = runtime.session({ id: 'a', cwd: link });
    expect(text(await bash(session, 'touch first && pwd'))).toBe(`${real}\n`);
    // Someone outside the session points the path elsewhere; the session's commands still write where it opened.
    unlinkSync(link);
    symlinkSync(victim, link);
    const second = await bash(session, 'touch second; pwd');
    expect(text(second)).toBe(`${real}\n`);
    expect(existsSync(join(real, 'second'))).toBe(true);
    expect(existsSync(join(victim, 'second'))).toBe(false);
  });

  it('refuses a call once the pinned directory itself was replaced by a symlink', async () => {
    const root = dir('b', 'ws');
    const victim = dir('b', 'victim');
    runtime = await open();
    const session = runtime.session({ id: 'b', cwd: root });
    expect(text(await bash(session, 'echo ok'))).toBe('ok\n');
    renameSync(root, `${root}.old`);
    symlinkSync(victim, root);
    const refused = await bash(session, 'touch planted');
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain(
      `sandbox workspace root "${root}" is refused: it no longer names the directory this session opened with (a component of the path was moved or replaced); open a new session`,
    );
    expect(existsSync(join(victim, 'planted'))).toBe(false);
  });

  it('refuses a session whose root lies inside, or holds, another live session\'s workspace; the same root is shared', async () => {
    const outer = dir('c', 'outer');
    const inner = dir('c', 'outer', 'nested');
    runtime = await open();
    const first = runtime.session({ id: 'outer', cwd: outer });
    // The attack: the outer session's command turns a directory of its workspace into a symlink to anywhere,
    // and a session opened below it would write there. It cannot open.
    expect(() => runtime!.session({ id: 'inner', cwd: inner })).toThrow(
      `sandbox workspace root "${inner}" is refused: it lies inside session outer's workspace ${outer}; give each session a workspace of its own, or the same one`,
    );
    expect(runtime.session({ id: 'same', cwd: outer }).root?.path).toBe(outer);
    await first.close();
    await runtime.sessions().find((s) => s.id === 'same')!.close();
    runtime.session({ id: 'inner', cwd: inner });
    expect(() => runtime!.session({ id: 'outer', cwd: outer })).toThrow(`it contains session inner's workspace ${inner}`);
  });

  it('refuses, from its first call, a session whose root nests in another\'s only once resolved through a symlink', async () => {
    const outer = dir('d', 'outer');
    const inner = dir('d', 'outer', 'nested');
    const link = join(work, backend, 'd', 'link');
    symlinkSync(inner, link);
    runtime = await open();
    const first = runtime.session({ id: 'outer', cwd: outer });
    // Opening resolves nothing on the event loop: the path as given nests with nothing, so it opens.
    const through = runtime.session({ id: 'through', cwd: link });
    const refused = await bash(through, 'touch planted');
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain(
      `sandbox workspace root "${inner}" is refused: it lies inside session outer's workspace ${outer}; give each session a workspace of its own, or the same one`,
    );
    expect(existsSync(join(inner, 'planted'))).toBe(false);
    // The session it nests in is not held back by it.
    expect(text(await bash(first, 'echo ok'))).toBe('ok\n');
  });

  it('fails the calls of a session whose root is missing (as ever), or lies under a file (once it is resolved)', async () => {
    const missing = join(dir('e'), 'missing');
    const file = join(dir('e'), 'file');
    writeFileSync(file, '');
    runtime = await open();
    const gone = await bash(runtime.session({ id: 'missing', cwd: missing }), 'echo ran');
    expect(gone.isError).toBe(true);
    expect(text(gone)).toContain(`ENOENT: no such file or directory, chdir '${missing}'`);
    const under = await bash(runtime.session({ id: 'under-file', cwd: join(file, 'x') }), 'echo ran');
    expect(under.isError).toBe(true);
    expect(text(under)).toContain(`ENOTDIR: not a directory, stat '${join(file, 'x')}'`);
  });

  it('refuses a workspace that holds the runtime\'s own code: a command could replace the runner', async () => {
    runtime = await open();
    const probe = join(packageRoot(), '.shellring-pin-probe');
    const session = runtime.session({ id: 'pkg', cwd: packageRoot() });
    try {
      const refused = await bash(session, `touch ${probe}`);
      expect(refused.isError).toBe(true);
      expect(text(refused)).toContain(`sandbox workspace root "${packageRoot()}" is refused: it contains the runtime's own files (`);
      expect(existsSync(probe)).toBe(false);
    } finally {
      rmSync(probe, { force: true });
    }
  });
});
