// What the read policy derives from a few directories (/home's entries, those of `*` entries' directories, where
// /etc/resolv.conf leads), kept until an inotify watch on the directory reports a change: a warm confined call reads
// nothing from the disk and waits for no libuv thread.
import { watch, type FSWatcher } from 'node:fs';
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
 * `dir` is watched through its parent, so its making is seen; with neither there, nothing is kept. A change made
 * before this call is always seen (see `settled`).
 */
export async function watched<T>(key: string, dir: string, read: () => Promise<T>): Promise<T> {
  await settled();
  const known = kept.get(key);
  if (known) return known.value as Promise<T>;
  // Watched before the read: a change while it reads drops what it returns.
  const watcher = watchFirstOf([dir, dirname(dir)]);
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

/** A watch on the first of `dirs` that can be watched, not keeping the process alive. */
function watchFirstOf(dirs: string[]): FSWatcher | undefined {
  for (const dir of dirs) {
    try {
      return watch(dir, { persistent: false });
    } catch {
      // Absent, or out of inotify watches: the next one, or nothing kept.
    }
  }
  return undefined;
}
