// A local npm registry for the network tests: Verdaccio (test/package/verdaccio.ts) with one package published, run
// by the test process itself, so that a scenario run as another user needs none of Verdaccio's modules.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRegistry } from '../package/verdaccio.js';

export interface NpmIndex {
  port: number;
  stop(): Promise<void>;
}

/** The one package published, `shellring-net-probe` 1.0.0, whose main module exports this line. */
export const NPM_PROBE = 'installed through the proxy';

export async function startNpmIndex(): Promise<NpmIndex> {
  const dir = mkdtempSync(join(tmpdir(), 'shellring-npm-'));
  const registry = await startRegistry(join(dir, 'registry'), ['shellring-net-probe']);
  const pkg = join(dir, 'pkg');
  mkdirSync(pkg);
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'shellring-net-probe', version: '1.0.0', main: 'index.js' }));
  writeFileSync(join(pkg, 'index.js'), `module.exports = ${JSON.stringify(NPM_PROBE)};\n`);
  execFileSync('npm', ['publish', '--registry', registry.url, '--userconfig', registry.npmrc, '--cache', join(dir, 'npm-cache')], { cwd: pkg, stdio: 'pipe' });
  return {
    port: Number(new URL(registry.url).port),
    async stop() {
      await registry.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
