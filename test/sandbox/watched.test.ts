// The read policy's view of the directories it lists: kept while they are unchanged (read once, not per call), and
// a change made before a call seen by that call, even one made an instant before it from inside an I/O callback or
// beneath a FUSE mount, which no watch hears of; through a runtime, a key file made between two confined calls is
// denied to the second.
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostReadPaths } from '../../src/sandbox/read-policy.js';
import { watched } from '../../src/sandbox/watched.js';
import { bash, text } from '../helpers/calls.js';
import { runtimes } from '../helpers/runtimes.js';

const open = runtimes();

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'shellring-watched-'));
}

describe('watched', () => {
  it('reads a directory once while it is unchanged, again after each change', async () => {
    const dir = scratch();
    try {
      let reads = 0;
      const read = async () => ++reads;
      // Read twice when not kept: once to learn what it lists, once more with the watches in place.
      for (let i = 0; i < 5; i++) expect(await watched(`count ${dir}`, read, () => [dir])).toBe(2);
      await writeFile(join(dir, 'a'), '');
      expect(await watched(`count ${dir}`, read, () => [dir])).toBe(4);
      expect(await watched(`count ${dir}`, read, () => [dir])).toBe(4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('sees a change made while the first read listed, before the watch was in place', async () => {
    const dir = scratch();
    try {
      let reads = 0;
      // The first read lists the directory, then a file appears before any watch exists.
      const read = async () => {
        const names = readdirSync(dir);
        if (reads++ === 0) writeFileSync(join(dir, 'late'), '');
        return names;
      };
      expect(await watched(`late ${dir}`, read, () => [dir])).toEqual(['late']);
      expect(await watched(`late ${dir}`, read, () => [dir])).toEqual(['late']);
      expect(reads).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('shares one read among the calls made while it is in flight', async () => {
    const dir = scratch();
    try {
      let reads = 0;
      const read = async () => ++reads;
      const values = await Promise.all(Array.from({ length: 10 }, () => watched(`shared ${dir}`, read, () => [dir])));
      expect(values).toEqual(Array(10).fill(2));
      expect(reads).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('denies a key file made just before a call, however the change was made', async () => {
    const dir = scratch();
    const entry = [`${dir}/*_key`];
    try {
      writeFileSync(join(dir, 'a'), '');
      expect((await hostReadPaths(entry)).denied).toEqual([]);
      // Made from an fs callback (the poll phase), then expanded at once: the watch's event is read before use.
      await writeFile(join(dir, 'b_key'), '');
      expect((await hostReadPaths(entry)).denied).toEqual([join(dir, 'b_key')]);
      writeFileSync(join(dir, 'c_key'), '');
      expect((await hostReadPaths(entry)).denied.sort()).toEqual([join(dir, 'b_key'), join(dir, 'c_key')]);
      // By another process.
      execFileSync('touch', [join(dir, 'd_key')]);
      expect((await hostReadPaths(entry)).denied.sort()).toEqual(['b_key', 'c_key', 'd_key'].map((name) => join(dir, name)));
      await rm(join(dir, 'b_key'));
      expect((await hostReadPaths(entry)).denied.sort()).toEqual([join(dir, 'c_key'), join(dir, 'd_key')]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('sees a directory made after it was found absent, and made again after its removal', async () => {
    const dir = scratch();
    const keys = join(dir, 'keys');
    const entry = [`${keys}/*_key`];
    try {
      expect((await hostReadPaths(entry)).denied).toEqual([]);
      await mkdir(keys);
      await writeFile(join(keys, 'a_key'), '');
      expect((await hostReadPaths(entry)).denied).toEqual([join(keys, 'a_key')]);
      await rm(keys, { recursive: true });
      expect((await hostReadPaths(entry)).denied).toEqual([]);
      mkdirSync(keys);
      writeFileSync(join(keys, 'b_key'), '');
      expect((await hostReadPaths(entry)).denied).toEqual([join(keys, 'b_key')]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps nothing on a filesystem changed from elsewhere (FUSE, as NFS would be): inotify never hears of it', async () => {
    const dir = scratch();
    const under = join(dir, 'under');
    const mounted = join(dir, 'mounted');
    mkdirSync(under);
    mkdirSync(mounted);
    execFileSync('bindfs', [under, mounted]);
    try {
      const entry = [`${mounted}/*_key`];
      expect((await hostReadPaths(entry)).denied).toEqual([]);
      // Made beneath the mount, as another machine would change a network filesystem.
      writeFileSync(join(under, 'a_key'), '');
      expect((await hostReadPaths(entry)).denied).toEqual([join(mounted, 'a_key')]);
    } finally {
      execFileSync('fusermount3', ['-u', mounted]);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps nothing where neither the directory nor its parent exists', async () => {
    const dir = join(tmpdir(), 'shellring-watched-absent', 'x');
    let reads = 0;
    for (let i = 0; i < 3; i++) await watched(`count ${dir}`, async () => ++reads, () => [dir]);
    expect(reads).toBe(3);
  });
});

describe.each(['landlock', 'bubblewrap'] as const)('a confined call on %s', (backend) => {
  it('is denied a key file made since the call before it, and reads a file made beside it', async () => {
    const dir = scratch();
    const keys = join(dir, 'keys');
    const workspace = join(dir, 'workspace');
    mkdirSync(keys);
    mkdirSync(workspace);
    try {
      const runtime = await open({ sandbox: { mode: 'workspace-write', backend, read: 'host', readDeny: [`${keys}/*_key`] } });
      const session = runtime.session({ id: 'keys', cwd: workspace });
      writeFileSync(join(keys, 'plain'), 'plain-text\n');
      expect(text(await bash(session, `cat ${keys}/plain`))).toBe('plain-text\n');
      for (const name of ['a_key', 'b_key']) {
        await writeFile(join(keys, name), 'key-secret\n');
        expect(text(await bash(session, `cat ${keys}/${name}`))).not.toContain('key-secret');
      }
      await writeFile(join(keys, 'other'), 'other-text\n');
      expect(text(await bash(session, `cat ${keys}/other`))).toBe('other-text\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
