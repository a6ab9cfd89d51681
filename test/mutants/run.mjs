// `npm run test:mutants`: puts each deliberate bug of bugs.mjs into a scratch copy of this checkout, builds it, and
// runs the tests that must catch it. Exits non-zero when any bug survives (or when a catching test already fails on
// the code as it is, which would make its failure under a bug mean nothing).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { BUGS } from './bugs.mjs';
import { listProblems } from './check.mjs';

const repo = join(import.meta.dirname, '..', '..');
/** A test that hangs under a bug still counts as failing, after this long. */
const TEST_TIMEOUT_MS = 600_000;
const only = process.argv.slice(2);
const bugs = only.length ? BUGS.filter((bug) => only.some((word) => bug.name.includes(word))) : BUGS;

function sh(command, args, cwd, timeout = TEST_TIMEOUT_MS) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout, maxBuffer: 256 * 1024 * 1024 });
  return { ok: result.status === 0, output: `${result.stdout ?? ''}${result.stderr ?? ''}`, timedOut: result.error?.code === 'ETIMEDOUT' };
}

/** The copy: every tracked and untracked file git would commit, the dependencies linked, the build output copied
 * so the first build there only recompiles what moved. */
function scratchCopy() {
  const dir = mkdtempSync(join(tmpdir(), 'shellring-mutants-'));
  const listed = sh('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], repo);
  if (!listed.ok) throw new Error(`git ls-files failed: ${listed.output}`);
  for (const file of listed.output.split('\0').filter(Boolean)) {
    if (!existsSync(join(repo, file))) continue;
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(repo, file), join(dir, file), { verbatimSymlinks: true });
  }
  symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'));
  if (existsSync(join(repo, 'target'))) cpSync(join(repo, 'target'), join(dir, 'target'), { recursive: true });
  return dir;
}

function build(dir) {
  const built = sh('npm', ['run', 'build'], dir, 1_800_000);
  if (!built.ok) throw new Error(`build failed in ${dir}:\n${built.output.slice(-4000)}`);
}

function describe(test) {
  return test.vitest ? `vitest ${test.vitest} -t "${test.name}"` : `cargo test --release ${test.cargo.join(' ')}`;
}

/** True when the test passed. */
function runTest(dir, test) {
  const result = test.vitest
    ? sh('npx', ['vitest', 'run', test.vitest, '-t', test.name], dir)
    : sh('cargo', ['test', '--release', ...test.cargo], dir);
  if (result.timedOut) return false;
  // A filter that matched nothing passes vacuously, and a test that did not compile fails without running: either
  // is a broken list, not a verdict.
  if (!ranSome(test, result.output)) throw new Error(`${describe(test)} ran no test:\n${result.output.slice(-3000)}`);
  return result.ok;
}

function ranSome(test, output) {
  const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
  if (test.vitest) return /^\s*Tests\s+.*\b[1-9]\d* (passed|failed)/m.test(plain);
  return (plain.match(/running (\d+) tests?/g) ?? []).some((line) => !line.startsWith('running 0 '));
}

// A rotted entry would fail an hour in, or pass vacuously: refuse the list before building anything.
const problems = listProblems(repo, bugs);
if (problems.length) {
  console.error(`the list does not match the sources:\n${problems.join('\n')}`);
  process.exit(2);
}
const dir = scratchCopy();
let survived = 0;
try {
  console.log(`scratch copy: ${dir}`);
  build(dir);
  const tests = [...new Map(bugs.flatMap((bug) => bug.tests).map((test) => [describe(test), test])).values()];
  for (const test of tests) {
    if (!runTest(dir, test)) throw new Error(`fails without any bug, so it proves nothing: ${describe(test)}`);
    console.log(`passes as it is: ${describe(test)}`);
  }
  for (const bug of bugs) {
    const path = join(dir, bug.file);
    const original = readFileSync(path, 'utf8');
    // A function, so a `$` in the bug's text is taken as itself (a string replacement reads `$'` as what follows).
    writeFileSync(path, original.replace(bug.find, () => bug.replace));
    const started = Date.now();
    try {
      build(dir);
      const missed = bug.tests.filter((test) => runTest(dir, test));
      if (missed.length) survived += 1;
      const seconds = Math.round((Date.now() - started) / 1000);
      console.log(`${missed.length ? 'SURVIVED' : 'caught  '}  ${bug.name} (${bug.file}; ${seconds} s with its build)`);
      for (const test of bug.tests) console.log(`          ${missed.includes(test) ? 'passed (missed it)' : 'failed (caught it)'}: ${describe(test)}`);
    } finally {
      writeFileSync(path, original);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`${bugs.length - survived} of ${bugs.length} deliberate bugs caught`);
process.exit(survived ? 1 : 0);
