// Package managers' sub-commands that run the command named in their arguments (`npx rm x`, `npm exec rm x`,
// `pnpm exec`, `yarn exec`, `bundle exec`, `uv run`, `poetry run`, `pipenv run`, `conda run`): that command is
// checked as if it ran directly, a script given to a shell option is parsed, and an option not listed here asks.
import { unresolvedWhy } from '../contract/index.js';
import { getopt, has, type OptionTable, values } from './getopt.js';
import type { Word } from './parse.js';

interface RunnerSpec {
  /** Its own options, up to the command (the table starts with `+`). */
  options: OptionTable;
  /** The option whose value is a shell script it runs (`npm exec -c 'cmd'`). */
  script?: string;
  /** The option that joins the command's words into one shell script (`pnpm exec -c`). */
  shell?: string;
  /** The command's words are always one shell script (yarn 2 and later). */
  joined?: boolean;
  /** The option that makes its operands a Python module and its arguments (`uv run -m`). */
  module?: string;
}

export interface RunnerRun {
  runs?: Word[][];
  scripts?: Word[];
  unresolved?: string;
}

const none = 'none';
const required = 'required';

const NPM_EXEC: RunnerSpec = {
  options: {
    short: '+p:c:yqw:',
    long: {
      package: [required, 'p'], call: [required, 'c'], yes: [none, 'y'], no: none, 'no-install': none, 'ignore-existing': none,
      quiet: [none, 'q'], silent: none, offline: none, 'prefer-offline': none, 'prefer-online': none, workspace: [required, 'w'],
      workspaces: none, 'include-workspace-root': none, registry: required, cache: required, loglevel: required,
    },
  },
  script: 'c',
};

const UV_RUN: RunnerSpec = {
  options: {
    short: '+p:qvm',
    long: {
      python: [required, 'p'], with: required, 'with-editable': required, 'with-requirements': required, directory: required,
      project: required, package: required, extra: required, 'all-extras': none, 'no-dev': none, dev: none, group: required,
      'only-group': required, 'all-groups': none, 'no-group': required, frozen: none, locked: none, isolated: none, 'no-sync': none,
      'no-project': none, 'env-file': required, 'no-env-file': none, active: none, quiet: [none, 'q'], verbose: [none, 'v'],
      offline: none, 'no-cache': none, exact: none, 'no-editable': none, index: required, 'default-index': required, module: [none, 'm'],
    },
  },
  module: 'm',
};

/** A tool of tool-table.ts and its sub-commands that run a command. */
export const TOOL_RUNNERS: Readonly<Record<string, Readonly<Record<string, RunnerSpec>>>> = {
  npm: { exec: NPM_EXEC },
  pnpm: { exec: { options: { short: '+rc', long: { recursive: [none, 'r'], 'shell-mode': [none, 'c'], parallel: none, 'resume-from': required, 'report-summary': none } }, shell: 'c' } },
  yarn: { exec: { options: { short: '+' }, joined: true } },
};

/** Programs whose first word names the sub-command that runs a command (`npx` runs one with no sub-command). */
const PROGRAM_RUNNERS: Readonly<Record<string, Readonly<Record<string, RunnerSpec>>>> = {
  npx: { '': NPM_EXEC },
  uv: { run: UV_RUN },
  bundle: { exec: { options: { short: '+', long: { 'keep-file-descriptors': none, gemfile: required } } } },
  poetry: { run: { options: { short: '+' } } },
  pipenv: { run: { options: { short: '+' } } },
  conda: { run: { options: { short: '+n:p:v', long: { name: [required, 'n'], prefix: [required, 'p'], cwd: required, 'no-capture-output': none, 'live-stream': none } } } },
};

/** What `words` (a program of PROGRAM_RUNNERS named `base`) runs; undefined for any other program. */
export function programRun(base: string, words: readonly Word[]): RunnerRun | undefined {
  const subs = PROGRAM_RUNNERS[base];
  if (subs === undefined) return undefined;
  const direct = subs[''];
  if (direct) return runnerRun(base, direct, words.slice(1));
  const sub = words[1];
  if (sub === null) return { unresolved: unresolvedWhy.dynamicOption(base) };
  if (sub !== undefined && Object.hasOwn(subs, sub)) return runnerRun(`${base} ${sub}`, subs[sub]!, words.slice(2));
  // A global option before the sub-command: it may be the one that runs a command.
  if (sub?.startsWith('-') && words.some((word) => word === null || (word !== sub && Object.hasOwn(subs, word)))) {
    return { unresolved: unresolvedWhy.unknownOption(base, sub) };
  }
  return undefined;
}

/** What a runner's words after its sub-command run. */
export function runnerRun(label: string, spec: RunnerSpec, words: readonly Word[]): RunnerRun {
  const parsed = getopt(label, spec.options, words, 0);
  if ('unresolved' in parsed) return { unresolved: parsed.unresolved };
  const scripts = spec.script ? values(parsed, spec.script) : [];
  if (scripts.length > 0) return { scripts };
  const argv = parsed.operands;
  if (argv.length === 0) return {};
  if (spec.module && has(parsed, spec.module)) return { runs: [['python', '-m', ...argv]] };
  if (!spec.joined && !(spec.shell && has(parsed, spec.shell))) return { runs: [argv] };
  return argv.includes(null) ? { unresolved: unresolvedWhy.dynamicScript(label) } : { scripts: [argv.join(' ')] };
}
