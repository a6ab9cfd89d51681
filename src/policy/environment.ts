// Variables a command sets that make a shell or another program run code: start-up files and options, preloaded
// libraries and git configuration ask; a variable whose value is a command a program runs has that value checked.
import { unresolvedWhy } from '../contract/index.js';
import type { Word } from './parse.js';

/** Start-up scripts, shell options, traced prompts, preloads and git configuration: what runs is not on the command line. */
const STARTUP: ReadonlySet<string> = new Set([
  'BASH_ENV', 'ENV', 'SHELLOPTS', 'BASHOPTS', 'PS4', 'PROMPT_COMMAND', 'LD_PRELOAD', 'LD_AUDIT', 'GIT_CONFIG_PARAMETERS', 'GIT_CONFIG_COUNT',
  'GIT_CONFIG', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM', 'GIT_EXEC_PATH', 'GIT_TEMPLATE_DIR',
]);
/** Exported functions, and git's numbered configuration (the environment every command gets sets GIT_CONFIG_COUNT, so a
 * command setting one of these alone changes what git runs). */
const STARTUP_PATTERN = /^(BASH_FUNC_|GIT_CONFIG_(KEY|VALUE)_\d+$)/;

function isStartup(name: string): boolean {
  return STARTUP.has(name) || STARTUP_PATTERN.test(name);
}

/** Values that are a command some program runs through a shell. */
const COMMANDS: ReadonlySet<string> = new Set([
  'GIT_SSH_COMMAND', 'GIT_SSH', 'GIT_PAGER', 'PAGER', 'MANPAGER', 'SYSTEMD_PAGER', 'GIT_EDITOR', 'EDITOR', 'VISUAL', 'GIT_SEQUENCE_EDITOR',
  'GIT_EXTERNAL_DIFF', 'GIT_ASKPASS', 'SSH_ASKPASS', 'SUDO_ASKPASS', 'GIT_PROXY_COMMAND', 'LESSOPEN', 'LESSCLOSE', 'BROWSER', 'KUBE_EDITOR',
]);

export type VariableEffect = { unresolved: string } | { script: Word } | undefined;

/** What setting `name` to `value` (null: not literal) makes run. */
export function variableEffect(name: string | null, value: Word): VariableEffect {
  if (name === null) return { unresolved: unresolvedWhy.dynamicVariable };
  if (isStartup(name)) return { unresolved: unresolvedWhy.startupVariable(name) };
  if (COMMANDS.has(name)) return { script: value };
  // `declare -n ref=BASH_ENV` makes every later `ref=…` set BASH_ENV.
  if (value !== null && (isStartup(value) || COMMANDS.has(value))) return { unresolved: unresolvedWhy.startupVariable(value) };
  return undefined;
}

/** Builtins that set the variables their arguments name (`read NAME`, `printf -v NAME`). */
const NAMING_BUILTINS: ReadonlySet<string> = new Set(['read', 'printf', 'mapfile', 'readarray', 'getopts', 'let']);

/** A variable of the tables named by a builtin that sets it, if any. */
export function namedVariable(base: string, words: readonly Word[]): string | undefined {
  if (!NAMING_BUILTINS.has(base)) return undefined;
  for (const word of words.slice(1)) {
    if (word === null) continue;
    const name = word.split('=', 1)[0]!;
    if (isStartup(name) || COMMANDS.has(name)) return name;
  }
  return undefined;
}
