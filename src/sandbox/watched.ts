// What the read policy derives from a few directories (/home's entries, those of `*` entries' directories, /etc for
// where resolv.conf leads), kept until an inotify watch on one of them reports a change: a warm confined call reads
// nothing from the disk and waits for no libuv thread. On a network or FUSE filesystem it is read at every call.
import { watch, type FSWatcher } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';

interface Kept {
  value: unknown;
  watchers: FSWatcher[];
}

/** At most this many values are kept (one per read policy, PATH and home in use): the oldest goes first. */
const MAX_KEPT = 16;
const kept = new Map<string, Kept>();
/** A read in flight, and how many calls joined it after it began. */
interface Reading {
  value: unknown;
  joined: number;
}
/** Reads in flight, shared by the calls made while they run. */
const reading = new Map<string, Reading>();
/** Bumped by every change seen and every read that could not be kept. */
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
 * `read()`'s value, kept under `key` while none of the directories `dirsOf` names in it changes. The value is read
 * again once the watches are in place, so a change made while the first read listed is heard; calls made meanwhile
 * share that second read. An absent directory is watched through its parent, so its making is seen; with neither
 * there, or on a filesystem another machine may change, nothing is kept. A change made before this call is always
 * seen (see `settled`).
 */
export async function watched<T>(key: string, read: () => Promise<T>, dirsOf: (value: T) => readonly string[]): Promise<T> {
  await settled();
  const known = kept.get(key);
  if (known) return known.value as T;
  const shared = reading.get(key);
  if (shared) {
    shared.joined += 1;
    return shared.value as T;
  }
  const pending: Reading = { value: undefined, joined: 0 };
  const forget = () => {
    if (reading.get(key) === pending) reading.delete(key);
  };
  pending.value = readAndWatch(key, read, dirsOf, pending, forget).finally(forget);
  reading.set(key, pending);
  return pending.value as T;
}

/** Reads, watches what the read listed, and reads again: the second value is kept unless a change was heard
 * meanwhile (`forget` then lets the next call read afresh). */
async function readAndWatch<T>(
  key: string,
  read: () => Promise<T>,
  dirsOf: (value: T) => readonly string[],
  shared: Reading,
  forget: () => void,
): Promise<T> {
  const first = await read();
  const dirs = dirsOf(first);
  const entry: Kept = { value: undefined, watchers: [] };
  let heard = false;
  const drop = () => {
    heard = true;
    version += 1;
    forget();
    for (const watcher of entry.watchers) watcher.close();
    if (kept.get(key) === entry) kept.delete(key);
  };
  const watchers = await watchAll(dirs, drop);
  if (!watchers) {
    version += 1;
    if (shared.joined === 0) return first;
    // Calls that joined after the first read began get a read begun after them.
    forget();
    return read();
  }
  entry.watchers = watchers;
  const value = await read();
  entry.value = value;
  if (heard || dirsOf(value).some((dir) => !dirs.includes(dir))) {
    for (const watcher of watchers) watcher.close();
    if (!heard) version += 1;
    return value;
  }
  if (kept.size >= MAX_KEPT) {
    const [oldest, gone] = kept.entries().next().value!;
    for (const watcher of gone.watchers) watcher.close();
    kept.delete(oldest);
  }
  kept.set(key, entry);
  return value;
}

/** A watch on each of `dirs`, each calling `changed` when it hears a change (or fails); none at all when one of
 * them cannot be watched. */
async function watchAll(dirs: readonly string[], changed: () => void): Promise<FSWatcher[] | undefined> {
  const places = await Promise.all(dirs.map(localPlace));
  const watchers: FSWatcher[] = [];
  for (const place of places) {
    const watcher = place === undefined ? undefined : watchOf(place);
    if (!watcher) {
      for (const made of watchers) made.close();
      return undefined;
    }
    watcher.on('change', changed);
    watcher.on('error', changed);
    watchers.push(watcher);
  }
  return watchers;
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
