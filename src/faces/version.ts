// The package's own version, read once from its package.json (same answer from src/ and dist/src/).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../native/loader.js';

let version: string | undefined;

export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}
