// A remote runner's snapshot of its command's /proc files (crates/runner/src/stdio/look.rs, in the format of crates/wire/src/look.rs), read as this host's
// /proc is: the same waiting look judges it, with the remote host's architecture.
import { findWaiting, type ProcFiles, type WaitingFinding } from '../waiting.js';

/** What the processes under the remote runner wait for, from the snapshot's bytes. */
export function remoteWaiting(payload: Buffer): WaitingFinding | undefined {
  const parts = payload.toString('latin1').split('\0');
  const files = new Map<string, string>();
  for (let i = 0; i + 1 < parts.length; i += 2) files.set(parts[i]!, parts[i + 1]!);
  const proc: ProcFiles = {
    read: (path) => files.get(path),
    list: (dir) => files.get(dir)?.split(' ').filter(Boolean),
    link: (path) => files.get(path),
  };
  const pids = (files.get('pids') ?? '').split(' ').filter(Boolean).map(Number);
  return findWaiting(Number(files.get('root')), pids, files.get('arch') ?? '', proc);
}
