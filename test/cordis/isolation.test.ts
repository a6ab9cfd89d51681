// The Cordis face is optional: importing the package root never resolves cordis or schemastery; `shellring/cordis` does.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));

// A resolve hook that refuses the Cordis face's dependencies, so any import path reaching them fails loudly.
const hook = join(mkdtempSync(join(tmpdir(), 'shellring-cordis-hook-')), 'refuse.mjs');
writeFileSync(
  hook,
  `import { registerHooks } from 'node:module';
registerHooks({
  resolve(specifier, context, next) {
    if (/^(cordis|schemastery|@cordisjs\\/)/.test(specifier)) throw new Error('refused: ' + specifier);
    return next(specifier, context);
  },
});
`,
);

/** Imports `specifier` from inside the package (a self-reference through its "exports") with the hook installed. */
function importWithHook(specifier: string) {
  return spawnSync(
    process.execPath,
    ['--import', pathToFileURL(hook).href, '--input-type=module', '-e', `await import(${JSON.stringify(specifier)}); console.log('imported');`],
    { cwd: repo, encoding: 'utf8' },
  );
}

describe('the shellring/cordis subpath', () => {
  it('is built', () => {
    expect(existsSync(join(repo, 'dist/src/cordis/index.js')), 'run `npm run build` first').toBe(true);
  });

  it('is not loaded by the package root', () => {
    const root = importWithHook('shellring');
    expect(root.stderr).toBe('');
    expect(root.stdout).toBe('imported\n');
  });

  it('loads its dependencies through the subpath only', () => {
    const face = importWithHook('shellring/cordis');
    expect(face.status).not.toBe(0);
    expect(face.stderr).toMatch(/refused: (cordis|schemastery)/);
  });
});
