// Spill-file downloads: only regular files inside the runtime's own spill directory, never a path a page names.
import { createReadStream, realpathSync, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { basename, sep } from 'node:path';

/**
 * Streams the file, or returns an error text. The path is resolved first (`..`, symlinks), so a link or a
 * crafted path that leaves the spill root is refused whatever its spelling.
 */
export function sendSpill(res: ServerResponse, spillRoot: string, path: string | null): string | undefined {
  if (!path) return 'missing path';
  let real: string;
  let root: string;
  try {
    root = realpathSync(spillRoot);
    real = realpathSync(path);
  } catch {
    return 'no such spill file';
  }
  if (!real.startsWith(root + sep)) return 'refused: not a spill file of this runtime';
  const stat = statSync(real);
  if (!stat.isFile()) return 'refused: not a regular file';
  res.writeHead(200, {
    // Served as a download, never rendered: the bytes are a command's output.
    'content-type': 'application/octet-stream',
    'content-disposition': `attachment; filename="${basename(real).replace(/[^\w.-]/g, '_')}"`,
    'content-length': stat.size,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  createReadStream(real)
    .on('error', () => res.destroy())
    .pipe(res);
  return undefined;
}
