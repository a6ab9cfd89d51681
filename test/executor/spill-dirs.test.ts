// Spill directories: made again when removed, reclaimed after a crashed runtime, quota kept without reading them.
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalExecutor } from '../../src/executor/local.js';
import { spillUnavailable } from '../../src/contract/index.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-spilldirs-')));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const run = (ex: LocalExecutor, command: string, sessionId: string) =>
  ex.run(ex.resolve({ command, sessionId }));

const roots = (parent: string) => readdirSync(parent).filter((name) => name.startsWith('shellring-'));

describe('spill directories', () => {
  it('makes a removed session directory again: the next truncating call gets a real spill file', async () => {
    const executor = new LocalExecutor({ cwd: work, threads: 1 });
    try {
      const first = await run(executor, 'head -c 100000 /dev/zero', 's');
      const dir = first.stdout.spillPath!.slice(0, first.stdout.spillPath!.lastIndexOf('/'));
      // The command removes its own session's spill directory, as a cleanup step might.
      await run(executor, `rm -rf ${dir}`, 's');
      expect(existsSync(dir)).toBe(false);
      const next = await run(executor, 'seq 1 100000', 's');
      expect(next.stdout.truncated).toBe(true);
      expect(next.stdout.spillPath?.startsWith(`${dir}/`)).toBe(true);
      const want = Array.from({ length: 100000 }, (_, i) => `${i + 1}\n`).join('');
      expect(readFileSync(next.stdout.spillPath!, 'utf8')).toBe(want);
    } finally {
      await executor.close();
    }
  });

  it('reclaims the spill root of a runtime that was killed, and leaves live and kept roots alone', async () => {
    const parent = join(work, 'roots');
    mkdirSync(parent);
    // A runtime in another process (the built package, as a host runs it) that spills, then dies by SIGKILL without closing anything.
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { LocalExecutor } = await import(${JSON.stringify(new URL('../../dist/src/executor/local.js', import.meta.url).href)});
         const ex = new LocalExecutor({ spillRoot: ${JSON.stringify(parent)}, threads: 1 });
         const r = await ex.run(ex.resolve({ command: 'head -c 100000 /dev/zero', sessionId: 'x' }));
         process.stdout.write(r.stdout.spillPath + '\\n');
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const spillPath = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk) => {
        out += chunk;
        if (out.includes('\n')) resolve(out.trim());
      });
      child.on('exit', () => reject(new Error(`the child exited early: ${out}`)));
    });
    expect(existsSync(spillPath)).toBe(true);
    const live = new LocalExecutor({ spillRoot: parent, threads: 1 });
    const kept = new LocalExecutor({ spillRoot: parent, threads: 1, keepSpills: true });
    try {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      const crashedRoot = spillPath.split('/').slice(0, -2).join('/');
      expect(existsSync(crashedRoot)).toBe(true);
      // A directory that merely looks like a root, without a lock marker, is not ours to judge.
      const unmarked = join(parent, 'shellring-unmarked');
      mkdirSync(unmarked);
      writeFileSync(join(unmarked, 'keep.log'), 'x');

      const next = new LocalExecutor({ spillRoot: parent, threads: 1 });
      try {
        expect(existsSync(crashedRoot)).toBe(false);
        expect(existsSync(live.spills.root)).toBe(true);
        expect(existsSync(kept.spills.root)).toBe(true);
        expect(existsSync(unmarked)).toBe(true);
        expect(roots(parent).sort()).toEqual(
          [live.spills.root, kept.spills.root, next.spills.root, unmarked].map((p) => p.split('/').at(-1)).sort(),
        );
      } finally {
        await next.close();
      }
    } finally {
      child.kill('SIGKILL');
      await live.close();
      await kept.close();
    }
  }, 60_000);

  it('counts the session quota from the captures, without reading the directory', async () => {
    const executor = new LocalExecutor({ cwd: work, threads: 1, sessionSpillQuota: 250_000 });
    try {
      const first = await run(executor, 'head -c 100000 /dev/zero', 'q');
      expect(first.stdout.spillPath).toBeDefined();
      expect(executor.spills.used('q', executor.capture)).toBe(100_000);
      // Running commands count with what their files hold now.
      const running = executor.start(executor.resolve({ command: 'head -c 120000 /dev/zero; sleep 30', sessionId: 'q' }));
      await new Promise<void>((resolve) => {
        const check = () => (executor.spills.used('q', executor.capture) >= 220_000 ? resolve() : setTimeout(check, 20));
        check();
      });
      const third = await run(executor, 'head -c 100000 /dev/zero', 'q');
      expect(third.stdout.spillPath).toBeUndefined();
      // What was left of the quota when it started: 250000 - 220000 (or less, had the running one grown).
      expect(third.stdout.spillUnavailable).toMatch(/^the stream passed \d+ bytes, what was left of this session's spill quota/);
      expect(third.stdout.spillUnavailable).toBe(spillUnavailable.quota(Number(/passed (\d+)/.exec(third.stdout.spillUnavailable!)![1])));
      running.kill();
      await running.done;
    } finally {
      await executor.close();
    }
  }, 60_000);

  it('makes a removed spill root again, locked again: every session, old or new, gets its spill files back', async () => {
    const parent = join(work, 'removed-root');
    mkdirSync(parent);
    const executor = new LocalExecutor({ cwd: work, threads: 1, spillRoot: parent });
    try {
      const first = await run(executor, 'head -c 100000 /dev/zero', 'old');
      expect(first.stdout.spillPath?.startsWith(`${executor.spills.root}/`)).toBe(true);
      // Any unconfined command can do this.
      await run(executor, `rm -rf ${executor.spills.root}`, 'old');
      expect(existsSync(executor.spills.root)).toBe(false);
      const again = await run(executor, 'seq 1 100000', 'old');
      expect(again.stdout.spillPath?.startsWith(`${executor.spills.root}/`)).toBe(true);
      expect(readFileSync(again.stdout.spillPath!, 'utf8')).toBe(Array.from({ length: 100000 }, (_, i) => `${i + 1}\n`).join(''));
      await run(executor, `rm -rf ${executor.spills.root}`, 'old');
      const fresh = await run(executor, 'head -c 100000 /dev/zero', 'new');
      expect(fresh.stdout.spillPath?.startsWith(`${executor.spills.root}/`)).toBe(true);
      expect(statSync(executor.spills.root).mode & 0o777).toBe(0o700);
      // The new root carries a lock marker again: another runtime starting now must leave it alone.
      expect(existsSync(join(executor.spills.root, '.lock'))).toBe(true);
      const other = new LocalExecutor({ spillRoot: parent, threads: 1 });
      await other.close();
      expect(existsSync(fresh.stdout.spillPath!)).toBe(true);
    } finally {
      await executor.close();
    }
  }, 60_000);

  it('says why a cut stream has no spill file: the file cap, or no directory at all', async () => {
    const capped = new LocalExecutor({ cwd: work, threads: 1, maxSpillBytes: 80_000 });
    try {
      const result = await run(capped, 'head -c 100000 /dev/zero', 'c');
      expect(result.stdout.spillPath).toBeUndefined();
      expect(result.stdout.spillUnavailable).toBe(spillUnavailable.fileCap(80_000));
      expect(result.stdout.spillUnavailable).toBe('the stream passed 80000 bytes, the most one spill file may hold (maxSpillBytes)');
    } finally {
      await capped.close();
    }
    const parent = join(work, 'gone-parent');
    mkdirSync(parent);
    const orphan = new LocalExecutor({ cwd: work, threads: 1, spillRoot: parent });
    try {
      // Root and its parent gone: nothing is made outside the runtime's own two levels.
      rmSync(parent, { recursive: true, force: true });
      const result = await run(orphan, 'head -c 100000 /dev/zero', 'n');
      expect(result.stdout.truncated).toBe(true);
      expect(result.stdout.spillUnavailable).toBe(
        spillUnavailable.noDirectory(`ENOENT: no such file or directory, mkdir '${orphan.spills.root}'`),
      );
      expect(existsSync(parent)).toBe(false);
    } finally {
      await orphan.close();
    }
  }, 60_000);
});
