// The published types as a consumer's tsc reads them: an ES module and a CommonJS consumer of the typed tools
// (test/types/fixtures) must check, each `@ts-expect-error` line must be an error, and what tsc emits must run.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = fileURLToPath(new URL('fixtures', import.meta.url));
const tsc = join(repo, 'node_modules/typescript/bin/tsc');
const work = mkdtempSync(join(tmpdir(), 'shellring-types-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A consumer project holding the fixtures, with shellring (this checkout) and @types/node installed as links. */
function project(name: string, edit: (source: string) => string = (source) => source): string {
  const dir = join(work, name);
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true }));
  symlinkSync(repo, join(dir, 'node_modules/shellring'));
  symlinkSync(join(repo, 'node_modules/@types'), join(dir, 'node_modules/@types'));
  for (const file of readdirSync(fixtures)) writeFileSync(join(dir, file), edit(readFileSync(join(fixtures, file), 'utf8')));
  return dir;
}

function compile(dir: string, ...extra: string[]) {
  const run = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json', '--pretty', 'false', ...extra], { cwd: dir, encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

/** The lines right after each `@ts-expect-error`, as `file:line`. */
function expectedErrors(): string[] {
  return readdirSync(fixtures)
    .filter((file) => /\.[cm]ts$/.test(file))
    .flatMap((file) =>
      readFileSync(join(fixtures, file), 'utf8')
        .split('\n')
        .flatMap((line, index) => (line.trim().startsWith('// @ts-expect-error') ? [`${file}:${index + 2}`] : [])),
    );
}

let consumer: string;
beforeAll(() => {
  if (!existsSync(join(repo, 'dist/src/index.d.ts'))) throw new Error('dist/src/index.d.ts is missing: run `npm run build` first');
  consumer = project('consumer');
});

describe('the published types', () => {
  it('check an ES module and a CommonJS consumer of the typed tools', () => {
    expect(compile(consumer)).toEqual({ status: 0, output: '' });
  });

  it('make each @ts-expect-error line an error of its own', () => {
    const bare = project('bare', (source) => source.replaceAll('// @ts-expect-error', '// expected:'));
    const { status, output } = compile(bare, '--noEmit');
    expect(status).not.toBe(0);
    const lines = [...output.matchAll(/^(\w+\.[cm]ts)\((\d+),\d+\): error TS\d+/gm)].map(([, file, line]) => `${file}:${line}`);
    expect([...new Set(lines)].sort()).toEqual(expectedErrors().sort());
    expect(expectedErrors().length).toBeGreaterThanOrEqual(10);
  });

  it.each([
    ['esm.mjs', { exitCode: 3, stdout: 'hi\n', listed: [], unknown: true }],
    ['cjs.cjs', { exitCode: 0, text: 'from cjs\n', module: 'object' }],
  ])('compile to %s, which Node runs', (file, expected) => {
    const run = spawnSync(process.execPath, [join(consumer, 'out', file)], { cwd: consumer, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual(expected);
  });
});
