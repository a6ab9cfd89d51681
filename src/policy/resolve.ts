// From a script to what it runs: every simple command, with wrappers stripped (each stripped form kept as a view a
// rule may name), `bash -c`, `eval` and `trap` scripts parsed in turn, `find -exec` commands, and what cannot be
// resolved statically marked as such.
import { unresolvedWhy } from '../contract/index.js';
import { parseScript } from './parse.js';
import { PRIVILEGE_WRAPPERS, stripWrapper, WRAPPERS, type Word } from './wrappers.js';

/** How deep `bash -c` and `eval` scripts are followed; deeper nesting cannot be resolved. */
export const MAX_DEPTH = 16;

export interface Invocation {
  /** The command as written (after assignments), then each form a wrapper ran, innermost last. */
  views: Word[][];
  /** The simple command's source text, its first line cut at 80 characters. */
  text: string;
  /**
   * A shell running a literal script, `eval`, or a call of a function the script defines: what it runs is checked
   * on its own, not the name itself.
   */
  transparent: boolean;
  /** Why what it runs cannot be known before it runs. */
  unresolved?: string;
  /** `sudo` or `doas` wrappers it passed through. */
  privileged?: string[];
}

const SHELLS: ReadonlySet<string> = new Set(['bash', 'sh', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'busybox-sh']);
const FIND_EXEC: ReadonlySet<string> = new Set(['-exec', '-execdir', '-ok', '-okdir']);

export function basename(word: string): string {
  const slash = word.lastIndexOf('/');
  return slash < 0 ? word : word.slice(slash + 1);
}

/** Every invocation of `script`, depth-first in source order. */
export function resolveScript(script: string, depth = 0, out: Invocation[] = []): Invocation[] {
  if (depth > MAX_DEPTH) {
    out.push({ views: [], text: firstLine(script), transparent: false, unresolved: unresolvedWhy.tooDeep(MAX_DEPTH) });
    return out;
  }
  const parsed = parseScript(script);
  if (parsed.error) out.push({ views: [], text: firstLine(script), transparent: false, unresolved: unresolvedWhy.parseError });
  const functions = new Set(parsed.functions);
  for (const command of parsed.commands) resolveCommand(command.words, firstLine(command.text), depth, functions, out);
  return out;
}

function resolveCommand(words: Word[], text: string, depth: number, functions: ReadonlySet<string>, out: Invocation[]): void {
  const views: Word[][] = [];
  const privileged: string[] = [];
  let current = words;
  const push = (extra: Partial<Invocation> = {}) => {
    const invocation: Invocation = { views, text, transparent: false, ...extra };
    if (privileged.length > 0) invocation.privileged = privileged;
    out.push(invocation);
  };
  for (;;) {
    if (current.length === 0) break;
    views.push(current);
    const name = current[0];
    if (name === null || name === undefined) return push({ unresolved: unresolvedWhy.dynamicName });
    // A function of this script: its body is among the script's commands, checked where it is defined.
    if (functions.has(name)) return push({ transparent: true });
    const base = basename(name);
    if (WRAPPERS.has(base)) {
      const stripped = stripWrapper(base, current);
      if ('unresolved' in stripped) return push({ unresolved: stripped.unresolved });
      if (stripped.rest.length === 0) break;
      if (PRIVILEGE_WRAPPERS.has(base)) privileged.push(base);
      const replace = stripped.replace;
      current = replace === undefined ? stripped.rest : stripped.rest.map((word) => (word?.includes(replace) ? null : word));
      continue;
    }
    if (SHELLS.has(base)) {
      const script = shellScript(current);
      if (script === undefined) break;
      if (script === null) return push({ unresolved: unresolvedWhy.dynamicScript(`${base} -c`) });
      push({ transparent: true });
      resolveScript(script, depth + 1, out);
      return;
    }
    if (base === 'eval') {
      const args = current.slice(current[1] === '--' ? 2 : 1);
      if (args.some((word) => word === null)) return push({ unresolved: unresolvedWhy.dynamicScript('eval') });
      push({ transparent: true });
      if (args.length > 0) resolveScript(args.join(' '), depth + 1, out);
      return;
    }
    if (base === 'shopt' && current.includes('expand_aliases') && !current.includes('-u')) {
      return push({ unresolved: unresolvedWhy.aliases });
    }
    if (base === 'trap') {
      push();
      const args = current.slice(1).filter((word) => word !== '--');
      const action = args[0];
      if (args.length >= 2 && action !== '-' && !action?.startsWith('-')) {
        if (action === null) out.push({ views: [], text, transparent: false, unresolved: unresolvedWhy.dynamicScript('trap') });
        else resolveScript(action!, depth + 1, out);
      }
      return;
    }
    if (base === 'find') {
      push();
      findCommands(current, (argv) => resolveCommand(argv, text, depth, functions, out));
      return;
    }
    break;
  }
  push();
}

/**
 * The script of `<shell> [options] -c SCRIPT`: a string, null when it is not literal, undefined when the shell
 * runs no -c script (a file, stdin, or nothing literal enough to tell; then the shell is an ordinary command).
 */
function shellScript(words: readonly Word[]): string | null | undefined {
  let command = false;
  let i = 1;
  for (; i < words.length; i += 1) {
    const word = words[i];
    if (word === null) return command ? null : undefined;
    if (word === '--' || word === '-') {
      i += 1;
      break;
    }
    if (word.startsWith('--')) {
      if (word === '--rcfile' || word === '--init-file') i += 1;
      continue;
    }
    if (!/^[-+]/.test(word)) break;
    if (word.startsWith('-') && word.includes('c')) command = true;
    // -o/-O (and +o/+O) take an option name as the next word.
    if (/[oO]/.test(word.slice(1))) i += 1;
  }
  if (!command) return undefined;
  if (i >= words.length) return undefined;
  return words[i] ?? null;
}

/** The commands `find` runs with -exec, -execdir, -ok and -okdir; `{}` (a found path) is not literal. */
function findCommands(words: readonly Word[], each: (argv: Word[]) => void): void {
  for (let i = 1; i < words.length; i += 1) {
    const word = words[i];
    if (word === null || !FIND_EXEC.has(word)) continue;
    const argv: Word[] = [];
    for (i += 1; i < words.length && words[i] !== ';' && words[i] !== '+'; i += 1) {
      const part = words[i]!;
      argv.push(part === null || part.includes('{}') ? null : part);
    }
    if (argv.length > 0) each(argv);
  }
}

function firstLine(script: string): string {
  const line = script.trim().split('\n', 1)[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 80)}…` : line;
}
