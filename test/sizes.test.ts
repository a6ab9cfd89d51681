// The size of the house's rooms: in crates/*/src, workers/ and src/ no file holds more than 400 lines and no function
// more than 100 (a Rust file's test module, and the tables and tests named below, excepted), so each stays one concept
// a reader can hold.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const FILE_LINES = 400;
const FUNCTION_LINES = 100;

/** Tables or tests kept whole, each with why. */
const EXCEPTED: Record<string, string> = {
  'crates/core/src/ring/tests.rs': "the ring's tests, one module",
  'src/policy/wrapper-table.ts': 'the exec wrappers the policy strips, one entry each: a table',
};

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => ext.test(file))
    .map((file) => join(dir, file));
}

const crates = readdirSync(join(root, 'crates')).flatMap((crate) => files(join('crates', crate, 'src'), /\.rs$/));
const typescript = [...files('workers', /\.c?ts$/), ...files('src', /\.c?ts$/)];

/** A Rust file's lines before its test module. */
function rustCode(file: string): string[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const tests = lines.indexOf('#[cfg(test)]');
  return tests < 0 ? lines : lines.slice(0, tests);
}

/** Each Rust function (rustfmt's layout: it ends at the first `}` at its own indentation) with its length. */
function rustFunctions(file: string): { name: string; lines: number }[] {
  const lines = rustCode(file);
  const found: { name: string; lines: number }[] = [];
  lines.forEach((line, at) => {
    const match = /^(\s*)(?:pub(?:\([a-z]+\))? )?(?:const )?(?:unsafe )?(?:extern "C" )?fn ([a-z_0-9]+)/.exec(line);
    if (!match || line.trimEnd().endsWith(';')) return;
    const end = lines.findIndex((other, i) => i > at && other === `${match[1]}}`);
    if (end > at) found.push({ name: match[2]!, lines: end - at + 1 });
  });
  return found;
}

/** Each TypeScript function, method or arrow function with its length. */
function typescriptFunctions(file: string): { name: string; lines: number }[] {
  const text = readFileSync(join(root, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: { name: string; lines: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = node.name && (ts.isIdentifier(node.name) || ts.isPrivateIdentifier(node.name)) ? node.name.text : '(anonymous)';
      found.push({ name, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the size of the code', () => {
  it(`no file over ${FILE_LINES} lines`, () => {
    const long = [
      ...crates.map((file) => ({ file, lines: rustCode(file).length })),
      ...typescript.map((file) => ({ file, lines: readFileSync(join(root, file), 'utf8').split('\n').length })),
    ].filter(({ file, lines }) => lines > FILE_LINES && !(relative(root, join(root, file)) in EXCEPTED));
    expect(long).toEqual([]);
  });

  it(`no function over ${FUNCTION_LINES} lines`, () => {
    const long = [
      ...crates.flatMap((file) => rustFunctions(file).map((f) => ({ file, ...f }))),
      ...typescript.flatMap((file) => typescriptFunctions(file).map((f) => ({ file, ...f }))),
    ].filter(({ lines }) => lines > FUNCTION_LINES);
    expect(long).toEqual([]);
  });
});
