// What importing the package loads: the root and each face subpath load no native code, and from shellring's own
// files only the package's dependencies and that face's optional peers (package.json's peerDependencies).
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { FACE_PEERS, type Face } from '../src/faces/peers.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
const scratch = mkdtempSync(join(tmpdir(), 'shellring-imports-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// Installed before anything loads: refuses a native addon however it is reached (import, require, process.dlopen),
// and a bare package that a file of shellring's dist imports unless it is in ALLOWED (JSON in the environment).
const hook = join(scratch, 'refuse.mjs');
writeFileSync(
  hook,
  `import { registerHooks } from 'node:module';
const allowed = new Set(JSON.parse(process.env.ALLOWED));
const own = ${JSON.stringify(pathToFileURL(join(repo, 'dist')).href + '/')};
process.dlopen = (module, file) => { throw new Error('refused native code: ' + file); };
registerHooks({
  resolve(specifier, context, next) {
    if (specifier.endsWith('.node')) throw new Error('refused native code: ' + specifier);
    const bare = /^(?:@[^/]+\\/)?[^./][^/]*/.exec(specifier)?.[0];
    if (bare && !specifier.startsWith('node:') && context.parentURL?.startsWith(own) && !allowed.has(bare)) {
      // As Node says it for a package that is not installed.
      throw Object.assign(new Error("Cannot find package '" + bare + "' imported from " + context.parentURL + ' (refused)'), { code: 'ERR_MODULE_NOT_FOUND' });
    }
    return next(specifier, context);
  },
});
`,
);

/** Imports (or requires) `specifier` in a fresh Node, from inside the package (a self-reference through "exports"). */
function load(specifier: string, allowed: readonly string[], how: 'import' | 'require' = 'import') {
  const code = how === 'import' ? `await import(${JSON.stringify(specifier)});` : `require(${JSON.stringify(specifier)});`;
  const run = spawnSync(
    process.execPath,
    ['--import', pathToFileURL(hook).href, `--input-type=${how === 'import' ? 'module' : 'commonjs'}`, '-e', `${code} console.log('loaded');`],
    { cwd: repo, encoding: 'utf8', env: { ...process.env, ALLOWED: JSON.stringify(allowed), SHELLRING_BINDING_PATH: '' } },
  );
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const dependencies = Object.keys(manifest.dependencies);
const entries: [string, Face[]][] = [
  ['shellring', []],
  ['shellring/mcp', ['mcp', 'http']],
  ['shellring/console', ['console']],
  ['shellring/cordis', ['cordis']],
];

describe('importing the package', () => {
  it('lists every face package as an optional peer dependency, and nothing else', () => {
    const peers = Object.values(FACE_PEERS).flat().sort();
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual(peers);
    expect(Object.entries(manifest.peerDependenciesMeta).filter(([, meta]) => meta.optional).map(([name]) => name).sort()).toEqual(peers);
    for (const peer of peers) expect(manifest.dependencies[peer], peer).toBeUndefined();
  });

  it.each(entries)('%s loads no native code and only its own packages, by import and by require', (specifier, faces) => {
    const allowed = [...dependencies, ...faces.flatMap((face) => FACE_PEERS[face])];
    for (const how of ['import', 'require'] as const) {
      expect(load(specifier, allowed, how), how).toEqual({ status: 0, stdout: 'loaded\n', stderr: '' });
    }
  });

  // The console's packages are files it serves to the browser: read when a handler is made, not at import.
  it.each(entries.filter(([specifier]) => specifier === 'shellring/mcp' || specifier === 'shellring/cordis'))("%s fails without its face's packages (the hook can fail)", (specifier, faces) => {
    const run = load(specifier, dependencies);
    expect(run.status).not.toBe(0);
    const named = /Cannot find package '([^']+)' imported from \S+ \(refused\)/.exec(run.stderr)?.[1];
    expect(faces.flatMap((face) => FACE_PEERS[face])).toContain(named);
  });

  it("names the console's packages and the command installing them when a console handler is made without them", () => {
    const code = `
      const { createConsoleHandler } = await import('shellring/console');
      try {
        createConsoleHandler({}, { token: 'a'.repeat(43) });
      } catch (error) {
        console.log(JSON.stringify({ code: error.code, message: error.message }));
      }`;
    // The built package beside its dependencies only, as `npm install shellring` leaves it: the console looks its
    // packages up with require.resolve, which a resolve hook reaches on Node 26 but not on 22.
    const lean = join(scratch, 'lean');
    mkdirSync(join(lean, 'node_modules'), { recursive: true });
    cpSync(join(repo, 'dist/src'), join(lean, 'dist/src'), { recursive: true });
    copyFileSync(join(repo, 'package.json'), join(lean, 'package.json'));
    for (const name of dependencies) symlinkSync(join(repo, 'node_modules', name), join(lean, 'node_modules', name));
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: lean, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const ranges = manifest.peerDependencies;
    expect(JSON.parse(run.stdout)).toEqual({
      code: 'SHELLRING_MISSING_DEPENDENCY',
      message:
        'The web console needs the package preact, which is not installed: it is an optional peer dependency of shellring, installed only where it is used. ' +
        `Fix: run \`npm install preact@${ranges.preact} htm@${ranges.htm} ansi_up@${ranges.ansi_up}\` beside shellring (with -g for a global one).`,
    });
  });

  it('refuses native code in the hook (the hook can fail)', () => {
    const run = spawnSync(process.execPath, ['--import', pathToFileURL(hook).href, '-e', 'require(process.argv[1])', join(repo, `shellring.linux-x64-gnu.node`)], {
      encoding: 'utf8',
      env: { ...process.env, ALLOWED: '[]' },
    });
    expect(run.stderr).toContain('refused native code');
  });
});
