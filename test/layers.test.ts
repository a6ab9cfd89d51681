// The import layers of the house: each part of src/ imports only parts below it, workers/ only what supervises commands,
// src/executor's remote and wire parts only downward, and each Rust crate only the crates below it and, inside, its
// own modules without a cycle (the runner's folders in their order), so the house has no cycle and no upward seam.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = join(import.meta.dirname, '../src');

/**
 * Lower ranks are lower layers; a file may import its own part or any part of a lower rank. `errors` and `contract`
 * are leaves every layer uses; the package root (index.ts) only re-exports.
 */
const RANK: Record<string, number> = {
  errors: 0,
  contract: 0,
  native: 1,
  capture: 2,
  env: 2,
  executor: 3,
  jobs: 3,
  policy: 3,
  sandbox: 4,
  tools: 5,
  runtime: 6,
  cordis: 7,
  faces: 7,
  cli: 8,
  index: 9,
};

const part = (file: string) => relative(src, file).split('/')[0]!.replace(/\.[jt]s$/, '');

/** Every relative import of the TypeScript files under `dir`, as paths relative to src/. */
function imports(dir = src): { from: string; to: string }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.c?ts$/.test(file))
    .flatMap((file) => {
      const path = join(dir, file);
      const text = readFileSync(path, 'utf8');
      return [...text.matchAll(/(?:from|import\()\s*'(\.[^']+)'/g)].map((m) => ({
        from: relative(src, path),
        to: relative(src, resolve(dirname(path), m[1]!)),
      }));
    });
}

describe('the import layers of src/', () => {
  it('name every part', () => {
    const parts = new Set(readdirSync(src).map((name) => name.replace(/\.ts$/, '')));
    expect([...parts].filter((name) => !(name in RANK))).toEqual([]);
  });

  it('never run upward or sideways between parts', () => {
    const wrong = imports().filter(({ from, to }) => {
      const [a, b] = [part(join(src, from)), part(join(src, to))];
      return a !== b && !(RANK[b]! < RANK[a]!);
    });
    expect(wrong).toEqual([]);
  });

  it('never reach out of src/ (the reference capture and other test models stay out of the library)', () => {
    const outside = imports().filter(({ to }) => to.startsWith('..'));
    expect(outside).toEqual([]);
  });

  it('keep the HTTP plumbing below the MCP face: faces/mcp uses faces/http, never the reverse', () => {
    const upward = imports().filter(({ from, to }) => from.startsWith('faces/http/') && to.startsWith('faces/mcp/'));
    expect(upward).toEqual([]);
  });
});

describe('the import layers of workers/ and src/executor', () => {
  const workers = join(import.meta.dirname, '../workers');

  it('workers/ use only what supervises commands and what lies below it', () => {
    const allowed = new Set(['errors', 'contract', 'native', 'capture', 'env', 'executor']);
    const wrong = imports(workers).filter(({ to }) => to.startsWith('../') ? false : !allowed.has(part(join(src, to))));
    expect(wrong).toEqual([]);
    const outside = imports(workers).filter(({ to }) => to.startsWith('../') && !to.startsWith('../workers/'));
    expect(outside).toEqual([]);
  });

  it('src/executor: wire below everything else, remote above the rest, nothing below importing up', () => {
    const rank = (file: string) => (file.startsWith('executor/wire/') ? 0 : file.startsWith('executor/remote/') ? 2 : 1);
    const upward = imports()
      .filter(({ from, to }) => from.startsWith('executor/') && to.startsWith('executor/'))
      .filter(({ from, to }) => rank(to) > rank(from));
    expect(upward).toEqual([]);
    const wireOut = imports().filter(({ from, to }) => from.startsWith('executor/wire/') && !to.startsWith('executor/wire/') && part(join(src, to)) !== 'contract');
    expect(wireOut).toEqual([]);
  });
});

describe('the Rust crates', () => {
  const crates = join(import.meta.dirname, '../crates');
  /** Lower ranks are lower layers: a crate depends only on crates of a lower rank. */
  const CRATES: Record<string, number> = { wire: 0, core: 0, policy: 0, netproxy: 0, hostpaths: 0, runner: 1, node: 1 };
  /** The runner's folders in their order: each module uses only its own folder's and those before it. */
  const RUNNER: Record<string, number> = { failure: 0, confine: 1, life: 2, serve: 3, stdio: 4, cli: 5, lib: 5, main: 6 };

  it('name every crate, and depend only downward', () => {
    expect(readdirSync(crates).sort()).toEqual(Object.keys(CRATES).sort());
    const wrong = Object.keys(CRATES).flatMap((crate) =>
      [...readFileSync(join(crates, crate, 'Cargo.toml'), 'utf8').matchAll(/path = "\.\.\/([a-z]+)"/g)]
        .map((m) => ({ crate, uses: m[1]! }))
        .filter(({ uses }) => !(CRATES[uses]! < CRATES[crate]!)),
    );
    expect(wrong).toEqual([]);
  });

  it('have no cycle between the modules of a crate', () => {
    const cycles = Object.keys(CRATES).flatMap((crate) => cyclesOf(rustModules(join(crates, crate, 'src'))));
    expect(cycles).toEqual([]);
  });

  it("keep the runner's folders in their order", () => {
    const graph = rustModules(join(crates, 'runner/src'));
    const folder = (module: string) => module.split('/')[0]!;
    const upward = [...graph].flatMap(([from, uses]) =>
      [...uses].filter((to) => RUNNER[folder(to)]! > RUNNER[folder(from)]!).map((to) => `${from} -> ${to}`),
    );
    expect(Object.keys(RUNNER)).toEqual(expect.arrayContaining([...new Set([...graph.keys()].map(folder))]));
    expect(upward).toEqual([]);
  });
});

/**
 * The modules of a crate (paths below src/ without `.rs`, `mod.rs` named by its folder) and the modules each one's
 * code uses through `crate::` or `super::` paths (test modules left out).
 */
function rustModules(dir: string): Map<string, Set<string>> {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.rs'));
  const modules = new Set(files.map((file) => file.replace(/(\/mod)?\.rs$/, '')));
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const module = file.replace(/(\/mod)?\.rs$/, '');
    const own = module.split('/');
    const parent = file.endsWith('mod.rs') || module === 'lib' || module === 'main' ? own.slice(0, -1) : own.slice(0, -1);
    const text = readFileSync(join(dir, file), 'utf8').split(/^#\[cfg\(test\)\]$/m)[0]!;
    const uses = new Set<string>();
    for (const [, root, path] of text.matchAll(/\b(crate|super)::((?:[a-z_0-9]+::)*(?:[a-z_0-9]+|\{[^}]*\}))/g)) {
      const base = root === 'crate' ? [] : file.endsWith('mod.rs') ? own.slice(0, -1) : parent;
      const segments = path!.split('::');
      const last = segments.pop()!;
      const heads = last.startsWith('{') ? last.slice(1, -1).split(',').map((item) => item.trim().split('::')[0]!.replace(/^self$/, '')) : [last];
      for (const head of heads) {
        const full = [...base, ...segments, ...(head ? [head] : [])];
        for (let n = full.length; n > 0; n -= 1) {
          const candidate = full.slice(0, n).join('/');
          if (modules.has(candidate) && candidate !== module) {
            uses.add(candidate);
            break;
          }
        }
      }
    }
    graph.set(module, uses);
  }
  return graph;
}

/** The cycles of a module graph, each as its modules joined by ' -> '. */
function cyclesOf(graph: Map<string, Set<string>>): string[] {
  const found: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (module: string, path: string[]) => {
    if (state.get(module) === 'done') return;
    if (state.get(module) === 'open') {
      found.push([...path.slice(path.indexOf(module)), module].join(' -> '));
      return;
    }
    state.set(module, 'open');
    for (const next of graph.get(module) ?? []) visit(next, [...path, module]);
    state.set(module, 'done');
  };
  for (const module of graph.keys()) visit(module, []);
  return found;
}
