// Fresh private (0700) temporary directories for spill files and their baselines, removed when done.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Runs `body` with a new 0700 directory under the OS temp dir and removes the directory afterwards, always. */
export async function withTempDir<T>(prefix: string, body: (dir: string) => Promise<T> | T): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `shellring-bench-${prefix}-`));
  // mkdtemp already creates 0700; stated again because the spill contract requires a private directory.
  fs.chmodSync(dir, 0o700);
  try {
    return await body(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function removeFile(file: string): void {
  fs.rmSync(file, { force: true });
}
