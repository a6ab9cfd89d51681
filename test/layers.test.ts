// The import layers of src/: each part imports only parts below it, so the house has no cycle and no upward seam.
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

function imports(): { from: string; to: string }[] {
  return readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) => {
      const path = join(src, file);
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
