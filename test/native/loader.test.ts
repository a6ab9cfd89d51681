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
function packageWithLoader(name: string, manifest: Record<string, unknown> = {}): string {
  const root = path.join(scratch, name);
  fs.mkdirSync(path.join(root, 'dist/src/native'), { recursive: true });
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'shellring', type: 'module', ...manifest }));
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

  it('explains a missing binary at SHELLRING_BINDING_PATH in one paragraph, then loads once it is unset', () => {
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
    expect(error!.message).toBe(
      `shellring: the native binding for ${triple} did not load from SHELLRING_BINDING_PATH=${missing} (Cannot find module '${missing}'). ` +
        `Fix: point SHELLRING_BINDING_PATH at a shellring.${triple}.node built for shellring 0.1.0, or unset it to use the package @shellring/binding-${triple}.`,
    );
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

  it('in a clone without a build, names the package, the local file and the build command', () => {
    const triple = expectedTriple();
    const result = runLoader(packageWithLoader('bare'));
    expect(result.code).toBe('SHELLRING_BINDING_MISSING');
    expect(result.message).toBe(
      `shellring: the native binding for ${triple} is not built: it is the package @shellring/binding-${triple}, or in a clone of shellring the file shellring.${triple}.node at its root. ` +
        'Fix: run `npm run build:native` in the clone (needs Rust).',
    );
    expect(result.causes).toEqual(['MODULE_NOT_FOUND', 'MODULE_NOT_FOUND']);
  });

  it('in a clone whose build does not load, names the file, why, and the build command', () => {
    const triple = expectedTriple();
    const root = packageWithLoader('corrupt');
    const file = path.join(root, `shellring.${triple}.node`);
    fs.writeFileSync(file, 'not a shared object');
    const result = runLoader(root);
    const message = result.message as string;
    expect(message.startsWith(`shellring: the native binding for ${triple} did not load from the local build ${file} (`), message).toBe(true);
    expect(message).toContain(`${file}: file too short)`);
    expect(message.endsWith('). Fix: run `npm run build:native` in the clone (needs Rust).')).toBe(true);
    expect(message).not.toContain('\n');
  });

  it('installed without its platform package, names the package with its version and the install command', () => {
    const triple = expectedTriple();
    const pkg = `@shellring/binding-${triple}`;
    const result = runLoader(packageWithLoader('omitted', { version: '1.2.3', optionalDependencies: { [pkg]: '1.2.3', '@shellring/binding-darwin-arm64': '1.2.3' } }));
    expect(result.code).toBe('SHELLRING_BINDING_MISSING');
    expect(result.message).toBe(
      `shellring: the native binding for ${triple} is not installed: it is the package ${pkg}, which npm installs with shellring as an optional dependency unless optional dependencies are omitted (--omit=optional). ` +
        `Fix: run \`npm install ${pkg}@1.2.3\` in your project, or install shellring again without --omit=optional.`,
    );
  });

  it('on a platform no package is published for, names the platforms there are', () => {
    const triple = expectedTriple();
    const result = runLoader(packageWithLoader('elsewhere', { version: '1.2.3', optionalDependencies: { '@shellring/binding-darwin-arm64': '1.2.3', '@shellring/binding-linux-riscv64-gnu': '1.2.3' } }));
    expect(result.message).toBe(
      `shellring: the native binding for ${triple} is not published: there is no package @shellring/binding-${triple} (there are darwin-arm64, linux-riscv64-gnu). ` +
        'Fix: run shellring on one of those platforms, or build the binding in a clone of shellring with `npm run build:native` (needs Rust) and set SHELLRING_BINDING_PATH to the .node file it writes.',
    );
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
    expect(result.message).toBe(
      `shellring: the native binding for ${expectedTriple()} did not load from SHELLRING_BINDING_PATH=${foreign} (${foreign} is not a shellring binding of this version (no create/ringReadInto export)). ` +
        `Fix: point SHELLRING_BINDING_PATH at a shellring.${expectedTriple()}.node built for shellring of this version, or unset it to use the package @shellring/binding-${expectedTriple()}.`,
    );
  });
});
