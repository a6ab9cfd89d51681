// Spill-file downloads: only what the runtime's executor opens as one of its spill files, never a path a page names.
import type { ServerResponse } from 'node:http';
import type { Runtime } from '../../runtime/runtime.js';

const REFUSALS = {
  missing: 'missing path',
  absent: 'no such spill file',
  outside: 'refused: not a spill file of this runtime',
  'not-file': 'refused: not a regular file',
} as const;

/** Streams the file, or returns an error text. */
export async function sendSpill(res: ServerResponse, runtime: Runtime, path: string | null): Promise<string | undefined> {
  const file = await runtime.readSpill(path ?? '');
  if (!file.ok) return REFUSALS[file.reason];
  res.writeHead(200, {
    // Served as a download, never rendered: the bytes are a command's output.
    'content-type': 'application/octet-stream',
    'content-disposition': `attachment; filename="${file.name.replace(/[^\w.-]/g, '_')}"`,
    'content-length': file.size,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  file.stream.on('error', () => res.destroy()).pipe(res);
  return undefined;
}
