// The native loader: lazy loading, the platform triple, and the message when no binary can be found.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import ts from 'typescript';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { nativeBackend } from '../../src/capture/native.js';
import { loadBinding, loadedFrom, packageRoot, platformTriple } from '../../src/native/loader.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'shellring-loader-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
afterEach(() => {
  delete process.env.SHELLRING_BINDING_PATH;
});

function expectedTriple(): string {
  const { platform, arch } = process;
  if (platform !== 'linux') return `${platform}-${arch}`;
  const header = (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header;
  return `linux-${arch}-${header.glibcVersionRuntime ? 'gnu' : 'musl'}`;
}

/**
 * A stand-alone copy of the loader in a fresh package directory (no node_modules, maybe no .node file): the
 * loader is plain TypeScript whose one runtime import is the error type, so transpiling the two files alone gives
 * the code that ships.
 */
function packageWithLoader(name: string): string {
  const root = path.join(scratch, name);
  fs.mkdirSync(path.join(root, 'dist/src/native'), { recursive: true });
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'shellring', type: 'module' }));
  for (const file of ['native/loader', 'errors']) {
    const source = fs.readFileSync(path.join(repoRoot, `src/${file}.ts`), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
    });
    fs.writeFileSync(path.join(root, `dist/src/${file}.js`), outputText);
  }
  return root;
}

/** Runs the copied loader in a fresh Node process and reports what loadBinding did. */
function runLoader(root: string, env: NodeJS.ProcessEnv = {}): Record<string, unknown> {
  const script = `
    const m = await import(${JSON.stringify(path.join(root, 'dist/src/native/loader.js'))});
    try {
      const b = m.loadBinding();
      const id = b.create();
      b.write(id, 0, Buffer.from('ok'));
      console.log(JSON.stringify({ loaded: m.loadedFrom(), tail: b.tail(id, 0).toString() }));
    } catch (e) {
      const causes = e.cause instanceof AggregateError ? e.cause.errors : [e.cause];
      console.log(JSON.stringify({ code: e.code, message: e.message, causes: causes.map((c) => c && c.code) }));
    }`;
  const childEnv = { ...process.env, ...env };
  if (!('SHELLRING_BINDING_PATH' in env)) delete childEnv.SHELLRING_BINDING_PATH;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: childEnv, cwd: root });
  return JSON.parse(out.toString()) as Record<string, unknown>;
}

describe('native loader', () => {
  // First in this file: nothing has asked for the addon yet.
  it('loads nothing at import time', () => {
    expect(loadedFrom()).toBeUndefined();
    expect(nativeBackend.kind).toBe('native');
    expect(loadedFrom()).toBeUndefined();
  });

  it('names the platform triple and finds the package root', () => {
    expect(platformTriple()).toBe(expectedTriple());
    expect(packageRoot()).toBe(repoRoot);
  });

  it('explains a missing binary at SHELLRING_BINDING_PATH, then loads once it is unset', () => {
    const missing = path.join(scratch, 'nowhere', 'shellring.node');
    process.env.SHELLRING_BINDING_PATH = missing;
    const triple = expectedTriple();
    let error: (Error & { code?: string; cause?: unknown }) | undefined;
    try {
      loadBinding();
    } catch (e) {
      error = e as Error & { code?: string; cause?: unknown };
    }
    expect(error).toBeInstanceOf(Error);
    expect(error!.code).toBe('SHELLRING_BINDING_MISSING');
    expect(error!.message).toContain(`for ${triple}`);
    expect(error!.message).toContain(`SHELLRING_BINDING_PATH=${missing}`);
    expect(error!.message).toContain(`@shellring/binding-${triple}`);
    expect(error!.message).toContain('npm run build:native');
    expect((error!.cause as { code?: string }).code).toBe('MODULE_NOT_FOUND');

    // A failed load is not remembered: the next call tries again.
    delete process.env.SHELLRING_BINDING_PATH;
    const binding = loadBinding();
    // This checkout has the dev build at its root; an installed platform package would come first.
    expect([
      path.join(repoRoot, `shellring.${triple}.node`),
      path.join(repoRoot, `node_modules/@shellring/binding-${triple}/shellring.${triple}.node`),
    ]).toContain(loadedFrom());
    expect(loadBinding()).toBe(binding);
  });

  it('names the package, the local file and the fix when neither exists', () => {
    const root = packageWithLoader('bare');
    const triple = expectedTriple();
    const result = runLoader(root);
    expect(result.code).toBe('SHELLRING_BINDING_MISSING');
    const message = result.message as string;
    expect(message).toContain(`no native binding could be loaded for ${triple}`);
    expect(message).toContain(`tried the package @shellring/binding-${triple}: Cannot find module`);
    expect(message).toContain(`tried the local build ${path.join(root, `shellring.${triple}.node`)}`);
    expect(message).toContain(`install the package for this platform, @shellring/binding-${triple}`);
    expect(message).toContain('build from source with `npm run build:native`');
    expect(result.causes).toEqual(['MODULE_NOT_FOUND', 'MODULE_NOT_FOUND']);
  });

  it('falls back to the local build at the package root', () => {
    const root = packageWithLoader('dev');
    const triple = expectedTriple();
    fs.copyFileSync(path.join(repoRoot, `shellring.${triple}.node`), path.join(root, `shellring.${triple}.node`));
    expect(runLoader(root)).toEqual({ loaded: path.join(root, `shellring.${triple}.node`), tail: 'ok' });
  });

  it('refuses a file that is not a shellring binding', () => {
    const root = packageWithLoader('foreign');
    const foreign = path.join(root, 'foreign.cjs');
    fs.writeFileSync(foreign, 'module.exports = { hello: 1 };');
    const result = runLoader(root, { SHELLRING_BINDING_PATH: foreign });
    expect(result.code).toBe('SHELLRING_BINDING_MISSING');
    expect(result.message).toContain('is not a shellring binding of this version');
  });
});
