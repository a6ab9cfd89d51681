// Finds and loads the native addon on first use: the platform package, else a local build at the package root.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NativeBinding } from './binding.js';
import { ShellringError } from '../errors.js';

export type { NativeBinding } from './binding.js';

export const BINDING_PACKAGE_SCOPE = '@shellring/binding';
export const BINDING_PATH_ENV = 'SHELLRING_BINDING_PATH';

const require = createRequire(import.meta.url);

let loaded: { binding: NativeBinding; from: string } | undefined;
let root: string | undefined;
// Building a diagnostic report (to tell glibc from musl) takes milliseconds: do it once.
let cachedTriple: string | undefined;

/** glibc or musl: a musl Node reports no glibc runtime version in its diagnostic report header. */
function isMusl(): boolean {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return report?.header?.glibcVersionRuntime === undefined;
}

const ARCH_ABI: Record<string, string> = { arm: 'eabihf' };

/** The napi-rs platform triple of this process, e.g. `linux-x64-gnu`, `linux-x64-musl`, `darwin-arm64`. */
export function platformTriple(): string {
  if (cachedTriple !== undefined) return cachedTriple;
  const { platform, arch } = process;
  if (platform === 'linux') cachedTriple = `linux-${arch}-${isMusl() ? 'musl' : 'gnu'}${ARCH_ABI[arch] ?? ''}`;
  else if (platform === 'win32') cachedTriple = `win32-${arch}-msvc`;
  else cachedTriple = `${platform}-${arch}`;
  return cachedTriple;
}

/** What is read of shellring's own package.json. */
export interface Manifest {
  version?: string;
  /** The platform packages a published manifest names (none in a clone). */
  optionalDependencies?: Record<string, string>;
  /** The faces' packages, installed only when asked for. */
  peerDependencies?: Record<string, string>;
}

let manifest: Manifest | undefined;

/**
 * The directory holding shellring's package.json: found by walking up, so it is the same from `src/native`
 * (tests run the sources) and from `dist/src/native` (the published build).
 */
export function packageRoot(): string {
  if (root !== undefined) return root;
  const start = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest & { name?: unknown };
      if (pkg.name === 'shellring') {
        manifest = pkg;
        return (root = dir);
      }
    } catch {
      // No package.json here, or not readable JSON: keep walking.
    }
    if (path.dirname(dir) === dir) throw new ShellringError('SHELLRING_BINDING_MISSING', `shellring: no package.json named "shellring" above ${start}`);
  }
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n', 1)[0] ?? text;
}

function requireBinding(specifier: string): NativeBinding {
  const candidate = require(specifier) as Partial<NativeBinding> | null;
  // A stale or foreign .node file loads fine and fails later; refuse it here, where the message can say why.
  if (typeof candidate?.create !== 'function' || typeof candidate.ringReadInto !== 'function') {
    throw new ShellringError('SHELLRING_BINDING_MISSING', `${specifier} is not a shellring binding of this version (no create/ringReadInto export)`);
  }
  return candidate as NativeBinding;
}

interface Attempt {
  what: string;
  error: unknown;
}

/** Whether the error says the file or package (or the package root holding it) does not exist. */
function notFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'MODULE_NOT_FOUND' || code === 'SHELLRING_BINDING_MISSING';
}

/** shellring's package.json, or nothing when shellring was bundled away from it. */
export function packageManifest(): Manifest {
  try {
    packageRoot();
  } catch {
    return {};
  }
  return manifest ?? {};
}

/**
 * Why the binding did not load and what fixes it, in one paragraph (no stack: it is not a bug). `explicit`: the one
 * attempt was SHELLRING_BINDING_PATH's file. A manifest without platform packages is a clone's, which builds its own.
 */
function missingText(triple: string, attempts: Attempt[], explicit: boolean): string {
  const pkg = `${BINDING_PACKAGE_SCOPE}-${triple}`;
  const { version, optionalDependencies: published } = packageManifest();
  const head = `shellring: the native binding for ${triple}`;
  const build = '`npm run build:native` in the clone (needs Rust)';
  const failed = attempts.find((attempt) => explicit || !notFound(attempt.error));
  if (explicit) {
    return `${head} did not load from ${failed!.what} (${firstLine(failed!.error)}). Fix: point ${BINDING_PATH_ENV} at a shellring.${triple}.node built for shellring ${version ?? 'of this version'}, or unset it to use the package ${pkg}.`;
  }
  const install = `\`npm install ${version ? `${pkg}@${version}` : pkg}\``;
  if (failed) {
    return `${head} did not load from ${failed.what} (${firstLine(failed.error)}). Fix: ${published ? `run ${install} in your project to install it again` : `run ${build}`}.`;
  }
  if (published === undefined) {
    return `${head} is not built: it is the package ${pkg}, or in a clone of shellring the file shellring.${triple}.node at its root. Fix: run ${build}.`;
  }
  if (!(pkg in published)) {
    const platforms = Object.keys(published).map((name) => name.slice(BINDING_PACKAGE_SCOPE.length + 1));
    return `${head} is not published: there is no package ${pkg} (there are ${platforms.join(', ')}). Fix: run shellring on one of those platforms, or build the binding in a clone of shellring with \`npm run build:native\` (needs Rust) and set ${BINDING_PATH_ENV} to the .node file it writes.`;
  }
  return `${head} is not installed: it is the package ${pkg}, which npm installs with shellring as an optional dependency unless optional dependencies are omitted (--omit=optional). Fix: run ${install} in your project, or install shellring again without --omit=optional.`;
}

function missing(triple: string, attempts: Attempt[], explicit: boolean): Error {
  const errors = attempts.map((a) => a.error);
  const cause = errors.length === 1 ? errors[0] : new AggregateError(errors, 'every binding candidate failed to load');
  return new ShellringError('SHELLRING_BINDING_MISSING', missingText(triple, attempts, explicit), { cause });
}

/**
 * Loads the addon once per thread and returns it. Candidates, in order: `$SHELLRING_BINDING_PATH` alone when set;
 * else the package `@shellring/binding-<triple>`, then `shellring.<triple>.node` at the package root (a dev build).
 * Every thread resolves the same file, so they share one process-global registry.
 *
 * @throws Error with code `SHELLRING_BINDING_MISSING`: one paragraph naming the triple, the package and the fix; the
 * original errors are its `cause`.
 */
export function loadBinding(): NativeBinding {
  if (loaded !== undefined) return loaded.binding;
  const triple = platformTriple();
  const explicit = process.env[BINDING_PATH_ENV];
  const attempts: Attempt[] = [];
  const candidates: { what: string; specifier: string }[] = [];
  if (explicit) {
    const file = path.resolve(explicit);
    candidates.push({ what: `${BINDING_PATH_ENV}=${file}`, specifier: file });
  } else {
    const pkg = `${BINDING_PACKAGE_SCOPE}-${triple}`;
    candidates.push({ what: `the package ${pkg}`, specifier: pkg });
    const local = `shellring.${triple}.node`;
    try {
      const file = path.join(packageRoot(), local);
      candidates.push({ what: `the local build ${file}`, specifier: file });
    } catch (error) {
      // Bundled away from its package.json: there is no package root to hold a local build.
      attempts.push({ what: `the local build ${local} at the package root`, error });
    }
  }
  for (const { what, specifier } of candidates) {
    try {
      const binding = requireBinding(specifier);
      loaded = { binding, from: require.resolve(specifier) };
      return binding;
    } catch (error) {
      attempts.push({ what, error });
    }
  }
  throw missing(triple, attempts, Boolean(explicit));
}

/** The file the addon was loaded from, or undefined before a successful load. A worker thread that must share the
 * main thread's registry loads exactly this file. */
export function loadedFrom(): string | undefined {
  return loaded?.from;
}
