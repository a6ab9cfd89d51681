// What a shell (or `source`) runs: the literal script of `-c`, its standard input, or a script file; a device or
// /proc file, a script that is not literal and a shell whose language is not bash's cannot be read statically.
import { unresolvedWhy } from '../contract/index.js';
import type { Stdin, Word } from './parse.js';

/** Shells whose scripts are bash's language (near enough that a literal script is parsed as bash). */
export const SHELLS: ReadonlySet<string> = new Set(['bash', 'sh', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'rbash', 'lksh', 'ksh93', 'posh', 'yash', 'busybox-sh']);
/** Shells with a language of their own: whatever they run asks. */
export const FOREIGN_SHELLS: ReadonlySet<string> = new Set(['csh', 'tcsh', 'fish', 'xonsh', 'nu', 'elvish', 'rc', 'es', 'pwsh']);

export type ShellRun =
  | { script: string }
  | { stdin: true }
  | { file: string }
  | { unresolved: string }
  /** It prints something (--version) or fails on its options; nothing runs. */
  | { nothing: true };

/** Bash's long options that take the next word. */
const LONG_WITH_FILE: ReadonlySet<string> = new Set(['--rcfile', '--init-file']);
const LONG: ReadonlySet<string> = new Set([
  '--debug', '--debugger', '--dump-po-strings', '--dump-strings', '--login', '--noediting', '--noprofile', '--norc', '--posix',
  '--pretty-print', '--restricted', '--verbose', '--wordexp',
]);

/** What `<shell> [options] [-c SCRIPT | -s | FILE] [args]` runs. */
export function shellRun(base: string, words: readonly Word[]): ShellRun {
  if (FOREIGN_SHELLS.has(base)) return { unresolved: unresolvedWhy.foreignShell(base) };
  let command = false;
  let stdin = false;
  let i = 1;
  for (; i < words.length; i += 1) {
    const word = words[i];
    if (word === null) return { unresolved: unresolvedWhy.dynamicOption(base) };
    if (word === '--' || word === '-') {
      i += 1;
      break;
    }
    if (word.startsWith('--')) {
      if (word === '--help' || word === '--version') return { nothing: true };
      if (LONG_WITH_FILE.has(word)) i += 1;
      else if (!LONG.has(word)) return { unresolved: unresolvedWhy.unknownOption(base, word) };
      continue;
    }
    if (!/^[-+]./.test(word)) break;
    for (const letter of word.slice(1)) {
      if (letter === 'c' && word[0] === '-') command = true;
      if (letter === 's' && word[0] === '-') stdin = true;
      // -o/-O (and +o/+O) take an option name as the next word.
      if (letter === 'o' || letter === 'O') i += 1;
    }
  }
  if (command) {
    if (i >= words.length) return { nothing: true };
    const script = words[i]!;
    return script === null ? { unresolved: unresolvedWhy.dynamicScript(`${base} -c`) } : { script };
  }
  if (stdin || i >= words.length) return { stdin: true };
  return scriptFile(base, words[i]!);
}

/** `source FILE` and `. FILE`. */
export function sourceRun(words: readonly Word[]): ShellRun {
  const i = words[1] === '--' ? 2 : 1;
  if (i >= words.length) return { nothing: true };
  return scriptFile(words[0]!, words[i]!);
}

/** A script named by a path: a file is judged by its name; standard input, a device or /proc, or an expansion cannot be. */
function scriptFile(base: string, path: Word): ShellRun {
  if (path === null) return { unresolved: unresolvedWhy.dynamicScript(base) };
  if (path === '/dev/stdin' || path === '/dev/fd/0' || path === '/proc/self/fd/0') return { stdin: true };
  if (/^\/(dev|proc)\//.test(path)) return { unresolved: unresolvedWhy.deviceScript(base) };
  return { file: path };
}

/**
 * The script a shell reads from its standard input: literal here-document or here-string text; a file (judged by
 * its name, as a script file is); or, for a pipe, an inherited or duplicated descriptor, what asks.
 */
export function stdinScript(base: string, stdin: Stdin | null | undefined): ShellRun {
  if (stdin?.kind === 'text') return { script: stdin.value ?? '' };
  if (stdin?.kind === 'file' && typeof stdin.value === 'string') return scriptFile(base, stdin.value);
  return { unresolved: unresolvedWhy.stdinScript(base) };
}
