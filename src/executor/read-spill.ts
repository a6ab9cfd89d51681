// Opening a spill file for a reader outside the executor: only regular files inside the executor's spill root.
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { basename, sep } from 'node:path';
import type { SpillRead } from './types.js';

/**
 * The path is resolved first (`..`, symlinks), so a link or a crafted path that leaves the spill root is refused
 * whatever its spelling.
 */
export async function readSpillFile(spillRoot: string, path: string): Promise<SpillRead> {
  if (!path) return { ok: false, reason: 'missing' };
  let real: string;
  let root: string;
  try {
    root = await realpath(spillRoot);
    real = await realpath(path);
  } catch {
    return { ok: false, reason: 'absent' };
  }
  if (!real.startsWith(root + sep)) return { ok: false, reason: 'outside' };
  const info = await stat(real).catch(() => undefined);
  if (!info) return { ok: false, reason: 'absent' };
  if (!info.isFile()) return { ok: false, reason: 'not-file' };
  return { ok: true, name: basename(real), size: info.size, stream: createReadStream(real) };
}
