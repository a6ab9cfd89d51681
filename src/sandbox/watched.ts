// What the read policy derives from a few directories (/home's entries, those of `*` entries' directories, where
// /etc/resolv.conf leads), kept until an inotify watch on the directory reports a change: a warm confined call reads
// nothing from the disk and waits for no libuv thread. On a network or FUSE filesystem it is read at every call.
import { watch, type FSWatcher } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';

interface Kept {
  value: Promise<unknown>;
  watcher: FSWatcher;
}

const kept = new Map<string, Kept>();
/** Bumped by every change seen and every read that could not be watched. */
let version = 0;

/** What is derived from watched values is current while this stays the same (read after `settled()`). */
export function watchedVersion(): number {
  return version;
}

/** Resolves once the loop has polled since the call: every change made before it has been seen by then (the kernel
 * queues its event before the change returns; the second turn's check phase follows a poll phase). */
export async function settled(): Promise<void> {
  await turn();
  await turn();
}

/**
 * `read()`'s value (it may reject, as for an absent directory), kept under `key` while `dir` is unchanged. An absent
 * `dir` is watched through its parent, so its making is seen; with neither there, or on a filesystem another machine
 * may change, nothing is kept. A change made before this call is always seen (see `settled`).
 */
export async function watched<T>(key: string, dir: string, read: () => Promise<T>): Promise<T> {
  await settled();
  const known = kept.get(key);
  if (known) return known.value as Promise<T>;
  const place = await localPlace(dir);
  const raced = kept.get(key);
  if (raced) return raced.value as Promise<T>;
  // Watched before the read: a change while it reads drops what it returns.
  const watcher = place === undefined ? undefined : watchOf(place);
  const value = read();
  if (!watcher) {
    version += 1;
    return value;
  }
  const entry: Kept = { value, watcher };
  const drop = () => {
    version += 1;
    watcher.close();
    if (kept.get(key) === entry) kept.delete(key);
  };
  watcher.on('change', drop);
  watcher.on('error', drop);
  kept.set(key, entry);
  return value;
}

/** Filesystems whose changes made on another machine inotify never reports: NFS, SMB (three), FUSE, 9p, Ceph, AFS
 * (two), GFS2, OCFS2, Lustre. */
const REMOTE = new Set([
  0x6969, 0xff534d42, 0xfe534d42, 0x517b, 0x65735546, 0x01021997, 0x00c36400, 0x5346414f, 0x6b414653, 0x01161970, 0x7461636f,
  0x0bd00bd0,
]);

/** Where a watch sees every change of `dir`: itself, or its parent while it is absent; none on a remote filesystem. */
async function localPlace(dir: string): Promise<string | undefined> {
  for (const place of [dir, dirname(dir)]) {
    try {
      return REMOTE.has((await statfs(place)).type) ? undefined : place;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
    }
  }
  return undefined;
}

/** A watch on `dir` that does not keep the process alive; none when it cannot be made (out of inotify watches). */
function watchOf(dir: string): FSWatcher | undefined {
  try {
    return watch(dir, { persistent: false });
  } catch {
    return undefined;
  }
}
