// The mutation list cannot rot between full runs of `npm run test:mutants`: every entry's text and tests are checked
// against the sources here, and the check itself is shown to refuse each kind of rot on a small planted tree.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
// @ts-expect-error: plain JavaScript modules, run by node as they are
import { BUGS } from './bugs.mjs';
// @ts-expect-error: plain JavaScript modules, run by node as they are
import { listProblems } from './check.mjs';

const repo = join(import.meta.dirname, '..', '..');

describe('the mutation list', () => {
  it('has each text once in its file and each named test where it says', () => {
    expect(listProblems(repo, BUGS)).toEqual([]);
  }, 300_000);

  it('asks vitest itself about names built when the file runs (the policy table names its cases from its rows)', () => {
    const entry = (name: string) => ({ name: 'table', file: 'package.json', find: '"name": "shellring"', replace: '"name": "x"', tests: [{ vitest: 'test/policy/table.test.ts', name }] });
    expect(listProblems(repo, [entry('the case table .*plain: "ls"')])).toEqual([]);
    expect(listProblems(repo, [entry('the case table .*plain: "no such case"')])).toEqual([
      '"table": -t "the case table .*plain: \\"no such case\\"" matches no test in test/policy/table.test.ts',
    ]);
  }, 120_000);
});

describe('the check of the list', () => {
  const tree = mkdtempSync(join(tmpdir(), 'shellring-mutants-list-'));
  afterAll(() => rmSync(tree, { recursive: true, force: true }));
  const files: Record<string, string> = {
    'src/code.ts': 'export const a = 1;\nexport const b = 1;\n',
    'test/code.test.ts': [
      "describe('outer', () => {",
      "  describe.each(['one', 'two'])('in %s', () => {",
      "    it('holds the line', () => {});",
      '  });',
      "  it.skipIf(false)('reads `a` back', () => {});",
      '});',
      "test('at the top', () => {});",
    ].join('\n'),
    'crates/thing/Cargo.toml': '[package]\nname = "thing"\n',
    'crates/thing/src/lib.rs': 'pub mod part;\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn at_the_root() {}\n}\n',
    'crates/thing/src/part.rs': [
      '// a comment with a brace { and a fake #[test] fn commented_out()',
      'pub fn f() -> &\'static str { "}" }',
      '#[cfg(test)]',
      'mod tests {',
      "    const C: char = '{';",
      '    #[test]',
      '    fn in_a_part() {}',
      '}',
    ].join('\n'),
    'crates/thing/tests/whole.rs': 'mod common;\n#[test]\nfn end_to_end() {}\n',
    'crates/thing/tests/common/mod.rs': 'pub fn help() {}\n',
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), text);
  }
  const bug = (fields: object) => ({ name: 'planted', file: 'src/code.ts', find: 'const a = 1', replace: 'const a = 2', ...fields });
  const problems = (fields: object) => listProblems(tree, [bug(fields)]);

  it('passes entries that name what is there, describe names and .each rows included', () => {
    const tests = [
      { vitest: 'test/code.test.ts', name: 'outer > in two > holds the line' },
      { vitest: 'test/code.test.ts', name: 'outer > reads `a` back' },
      { vitest: 'test/code.test.ts', name: '^at the top$' },
      { cargo: ['-p', 'thing', '--lib', 'tests::at_the_root'] },
      { cargo: ['-p', 'thing', '--lib', 'part::tests::in_a_part'] },
      { cargo: ['-p', 'thing', '--test', 'whole', 'end_to_end'] },
      { cargo: ['-p', 'thing', '--test', 'whole'] },
    ];
    expect(problems({ tests })).toEqual([]);
  });

  it('refuses a text that is gone or there twice, and a replacement that changes nothing', () => {
    const tests = [{ cargo: ['-p', 'thing', '--lib'] }];
    expect(problems({ tests, find: 'const c = 1' })).toEqual(['"planted": its text is in src/code.ts 0 times, not once: "const c = 1"']);
    expect(problems({ tests, find: ' = 1;' })).toEqual(['"planted": its text is in src/code.ts 2 times, not once: " = 1;"']);
    expect(problems({ tests, replace: 'const a = 1' })).toEqual(['"planted": its replacement is its text: no bug']);
    expect(problems({ tests, file: 'src/gone.ts' })).toEqual(['"planted": src/gone.ts does not exist']);
  });

  it('refuses a vitest filter that matches no test as vitest joins the names', () => {
    // vitest 5 joins a test's describe names and its own with " > ": a filter written for spaces matches nothing.
    for (const name of ['holds the line twice', 'outer in one holds the line', 'in three > holds the line', 'outer > at the top']) {
      expect(problems({ tests: [{ vitest: 'test/code.test.ts', name }] })).toEqual([
        `"planted": -t ${JSON.stringify(name)} matches no test in test/code.test.ts`,
      ]);
    }
    expect(problems({ tests: [{ vitest: 'test/code.test.ts' }] })[0]).toMatch(/without a -t filter runs the whole file/);
    expect(problems({ tests: [{ vitest: 'test/gone.test.ts', name: 'x' }] })).toEqual(['"planted": test/gone.test.ts is not a test file of the suite']);
    expect(problems({ tests: [] })).toEqual(['"planted": names no test that must catch it']);
  });

  it('refuses a cargo filter that selects nothing in its target, a missing target and a commented-out test', () => {
    const cases: [string[], string][] = [
      [['-p', 'thing', '--lib', 'commented_out'], 'commented_out selects no test in the target'],
      [['-p', 'thing', '--lib', 'end_to_end'], 'end_to_end selects no test in the target'],
      [['-p', 'thing', '--test', 'whole', 'tests::at_the_root'], 'tests::at_the_root selects no test in the target'],
      [['-p', 'thing', '--test', 'gone'], 'thing has no test target gone'],
      [['-p', 'other', '--lib'], 'no workspace package other'],
      [['-p', 'thing', 'at_the_root'], 'names no target (--lib or --test <name>)'],
      [['-p', 'thing', '--lib', '--exact', 'x'], '--exact is not an argument this check reads'],
    ];
    for (const [args, problem] of cases) {
      expect(problems({ tests: [{ cargo: args }] })).toEqual([`"planted": cargo test ${args.join(' ')}: ${problem}`]);
    }
  });
});
