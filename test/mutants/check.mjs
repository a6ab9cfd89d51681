// What keeps the mutation list from rotting between full runs: each bug's text is in its file exactly once, and each
// test it names exists where it says (a vitest name its `-t` filter matches, a cargo test its filter selects in the
// named target). Read from the sources, without building or running anything but, for a vitest file whose names are
// only known when it runs, `vitest list`.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cargoTests, targetRoot, workspacePackages } from './cargo-tests.mjs';
import { vitestNames } from './vitest-names.mjs';

/** Every problem of the list, one line each; empty when the list is sound. */
export function listProblems(repo, bugs) {
  const problems = [];
  const packages = workspacePackages(repo);
  const seen = new Set();
  for (const bug of bugs) {
    const where = `"${bug.name}"`;
    if (seen.has(bug.name)) problems.push(`${where}: another bug has the same name`);
    seen.add(bug.name);
    problems.push(...textProblems(repo, bug).map((problem) => `${where}: ${problem}`));
    if (!bug.tests?.length) problems.push(`${where}: names no test that must catch it`);
    for (const test of bug.tests ?? []) {
      const problem = test.vitest ? vitestProblem(repo, test) : test.cargo ? cargoProblem(packages, test.cargo) : 'a test is neither vitest nor cargo';
      if (problem) problems.push(`${where}: ${problem}`);
    }
  }
  return problems;
}

function textProblems(repo, bug) {
  const path = join(repo, bug.file);
  if (!existsSync(path)) return [`${bug.file} does not exist`];
  const count = readFileSync(path, 'utf8').split(bug.find).length - 1;
  const problems = [];
  if (count !== 1) problems.push(`its text is in ${bug.file} ${count} times, not once: ${JSON.stringify(bug.find)}`);
  if (bug.replace === bug.find) problems.push('its replacement is its text: no bug');
  return problems;
}

function vitestProblem(repo, test) {
  const path = join(repo, test.vitest);
  if (!/^test\/.*\.test\.ts$/.test(test.vitest) || !existsSync(path)) return `${test.vitest} is not a test file of the suite`;
  if (typeof test.name !== 'string' || test.name === '') return `vitest ${test.vitest} without a -t filter runs the whole file: name the test`;
  const pattern = new RegExp(test.name);
  const { names, dynamic } = vitestNames(path);
  if (names.some((name) => pattern.test(name))) return undefined;
  // Some names are built when the file runs (a template, a table that is not literal): ask vitest itself.
  if (dynamic && listed(repo, test).length > 0) return undefined;
  return `-t ${JSON.stringify(test.name)} matches no test in ${test.vitest}`;
}

/** The tests `vitest list <file> -t <name>` finds: it runs the file's top-level code, not its tests (vitest 5 parses statically unless told not to). */
function listed(repo, test) {
  const vitest = join(repo, 'node_modules', 'vitest', 'vitest.mjs');
  const run = spawnSync(process.execPath, [vitest, 'list', test.vitest, '-t', test.name, '--json', '--no-staticParse'], { cwd: repo, encoding: 'utf8', timeout: 300_000 });
  const json = run.stdout?.slice(run.stdout.indexOf('['));
  try {
    return JSON.parse(json);
  } catch {
    return [];
  }
}

/** `cargo test` arguments: `-p <package>`, `--lib` or `--test <name>`, then filters (substrings of a test's path). */
function cargoProblem(packages, args) {
  const shown = `cargo test ${args.join(' ')}`;
  let pkg;
  let target;
  const filters = [];
  for (let i = 0; i < args.length; i += 1) {
    if (args[i] === '-p') pkg = args[++i];
    else if (args[i] === '--lib') target = { kind: 'lib' };
    else if (args[i] === '--test') target = { kind: 'test', name: args[++i] };
    else if (args[i].startsWith('-')) return `${shown}: ${args[i]} is not an argument this check reads`;
    else filters.push(args[i]);
  }
  if (!pkg || !packages.has(pkg)) return `${shown}: no workspace package ${pkg}`;
  if (!target) return `${shown}: names no target (--lib or --test <name>)`;
  const root = targetRoot(packages.get(pkg), target.kind, target.name);
  if (!root) return `${shown}: ${pkg} has no ${target.kind === 'lib' ? 'lib' : `test target ${target.name}`}`;
  const tests = cargoTests(root);
  if (tests.length === 0) return `${shown}: the target holds no test`;
  const missing = filters.filter((filter) => !tests.some((path) => path.includes(filter)));
  return missing.length ? `${shown}: ${missing.join(', ')} selects no test in the target` : undefined;
}
