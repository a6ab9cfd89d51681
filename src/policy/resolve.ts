// From a script to what it runs: every simple command, with wrappers stripped and tools' global options passed
// (each form kept as a view a rule may name), the scripts of shells, `eval`, `trap`, git aliases and command-valued
// variables parsed in turn, `find -exec` commands, and what cannot be resolved statically marked as such.
import { unresolvedWhy } from '../contract/index.js';
import { markAliasUses } from './aliases.js';
import { mapfileCallback, rebinding } from './builtins.js';
import { namedVariable, variableEffect } from './environment.js';
import { parseScript, type ParsedCommand, type Word } from './parse.js';
import { FOREIGN_SHELLS, SHELLS, shellRun, sourceRun, stdinScript, type ShellRun } from './shells.js';
import { holdsSubscriptCode } from './subscripts.js';
import { normalizeTool, pythonModule } from './tools.js';
import { isWrapper, PRIVILEGE_WRAPPERS, stripWrapper } from './wrappers.js';

/** How deep `bash -c` and `eval` scripts are followed; deeper nesting cannot be resolved. */
export const MAX_DEPTH = 16;

export interface Invocation {
  /** The command as written (after assignments), then each form a wrapper ran or a tool's sub-command, innermost last. */
  views: Word[][];
  /** Per view, why its null words stand for words the checker cannot see (a rule comparing one then asks with it). */
  notes?: (string | undefined)[];
  /** The simple command's source text, its first line cut at 80 characters. */
  text: string;
  /**
   * A shell running a literal script, `eval`, or a call of a function the script defines: what it runs is checked
   * on its own, not the name itself.
   */
  transparent: boolean;
  /** Why what it runs cannot be known before it runs. */
  unresolved?: string;
  /** Privilege wrappers (`sudo`, `doas`, ...) it passed through. */
  privileged?: string[];
}

const FIND_EXEC: ReadonlySet<string> = new Set(['-exec', '-execdir', '-ok', '-okdir']);

export function basename(word: string): string {
  const slash = word.lastIndexOf('/');
  return slash < 0 ? word : word.slice(slash + 1);
}

interface Scope {
  depth: number;
  functions: ReadonlySet<string>;
  out: Invocation[];
}

/** Every invocation of `script`, depth-first in source order. */
export function resolveScript(script: string, depth = 0, out: Invocation[] = []): Invocation[] {
  if (depth > MAX_DEPTH) {
    out.push({ views: [], text: firstLine(script), transparent: false, unresolved: unresolvedWhy.tooDeep(MAX_DEPTH) });
    return out;
  }
  const parsed = parseScript(script);
  const head = parsed.error || parsed.assigned.length > 0 ? firstLine(script) : '';
  if (parsed.error) out.push({ views: [], text: head, transparent: false, unresolved: unresolvedWhy.parseError });
  const scope: Scope = { depth, functions: new Set(parsed.functions), out };
  for (const assignment of parsed.assigned) {
    variable(assignment.name, assignment.value, head, scope);
    if (holdsSubscriptCode(assignment.name) || holdsSubscriptCode(assignment.value)) subscript(head, scope);
  }
  for (const command of parsed.commands) resolveCommand(command, firstLine(command.text), scope);
  if (depth === 0) markAliasUses(out);
  return out;
}

/** A script some command runs (null: not literal), checked as its own invocations. */
function nested(script: Word, runner: string, text: string, scope: Scope): void {
  if (script === null) scope.out.push({ views: [], text, transparent: false, unresolved: unresolvedWhy.dynamicScript(runner) });
  else resolveScript(script, scope.depth + 1, scope.out);
}

/** Literal text bash may read as a subscript whose command substitution it runs. */
function subscript(text: string, scope: Scope): void {
  scope.out.push({ views: [], text, transparent: false, unresolved: unresolvedWhy.subscript });
}

/** A variable set to a value: what it makes run, if anything. */
function variable(name: string | null, value: Word, text: string, scope: Scope): void {
  const effect = variableEffect(name, value);
  if (effect === undefined) return;
  if ('unresolved' in effect) scope.out.push({ views: [], text, transparent: false, unresolved: effect.unresolved });
  else nested(effect.script, name!, text, scope);
}

/** One command's invocation as it is being resolved: its views, the notes on them, the privilege it passed. */
class Resolving {
  readonly views: Word[][] = [];
  notes: (string | undefined)[] | undefined;
  privileged: string[] | undefined;

  constructor(
    readonly text: string,
    readonly scope: Scope,
  ) {}

  view(words: Word[], note?: string): void {
    if (note !== undefined) {
      this.notes ??= [];
      this.notes[this.views.length] = note;
    }
    this.views.push(words);
  }

  push(extra?: Partial<Invocation>): void {
    const invocation: Invocation = { views: this.views, text: this.text, transparent: false, ...extra };
    if (this.notes) invocation.notes = this.notes;
    if (this.privileged) invocation.privileged = this.privileged;
    this.scope.out.push(invocation);
  }
}

function resolveCommand(command: Pick<ParsedCommand, 'words' | 'stdin'>, text: string, scope: Scope): void {
  const resolving = new Resolving(text, scope);
  if (command.words.some(holdsSubscriptCode)) subscript(text, scope);
  let current = command.words;
  let note: string | undefined;
  for (;;) {
    if (current.length === 0) break;
    resolving.view(current, note);
    note = undefined;
    const name = current[0];
    if (name === null || name === undefined) return resolving.push({ unresolved: unresolvedWhy.dynamicName });
    // A function of this script: its body is among the script's commands, checked where it is defined.
    if (scope.functions.has(name)) return resolving.push({ transparent: true });
    const base = basename(name);
    const named = namedVariable(base, current);
    if (named !== undefined) return resolving.push({ unresolved: unresolvedWhy.startupVariable(named) });
    if (isWrapper(base)) {
      const stripped = stripWrapper(base, current);
      if ('unresolved' in stripped) return resolving.push({ unresolved: stripped.unresolved });
      for (const [variableName, value] of stripped.environment ?? []) variable(variableName, value, text, scope);
      for (const script of stripped.also ?? []) nested(script, base, text, scope);
      if (PRIVILEGE_WRAPPERS.has(base)) (resolving.privileged ??= []).push(base);
      current = stripped.run;
      note = stripped.note;
      continue;
    }
    const module = pythonModule(base, current);
    if (module !== undefined) {
      if ('unresolved' in module) return resolving.push({ unresolved: module.unresolved });
      current = module;
      continue;
    }
    if (SHELLS.has(base) || FOREIGN_SHELLS.has(base)) return shell(shellRun(base, current), base, command, resolving);
    if (base === 'source' || base === '.') return shell(sourceRun(current), base, command, resolving);
    if (base === 'eval') {
      const args = current.slice(current[1] === '--' ? 2 : 1);
      if (args.some((word) => word === null)) return resolving.push({ unresolved: unresolvedWhy.dynamicScript('eval') });
      resolving.push({ transparent: true });
      if (args.length > 0) resolveScript(args.join(' '), scope.depth + 1, scope.out);
      return;
    }
    if (base === 'shopt' && current.includes('expand_aliases') && !current.includes('-u')) {
      return resolving.push({ unresolved: unresolvedWhy.aliases });
    }
    if (base === 'trap') return trap(current, resolving);
    const rebound = rebinding(base, current);
    if (rebound !== undefined) return resolving.push({ unresolved: rebound });
    if (base === 'mapfile' || base === 'readarray') {
      const callback = mapfileCallback(base, current);
      if (callback !== undefined && 'unresolved' in callback) return resolving.push({ unresolved: callback.unresolved });
      resolving.push();
      if (callback !== undefined) nested(callback.script, base, text, scope);
      return;
    }
    if (base === 'find') {
      resolving.push();
      findCommands(current, (argv) => resolveCommand({ words: argv }, text, scope));
      return;
    }
    const tool = normalizeTool(base, current);
    if (tool === undefined || 'nothing' in tool) break;
    if (!('views' in tool)) return resolving.push({ unresolved: tool.unresolved });
    for (const found of tool.views) resolving.view(found.view, found.note);
    if (tool.unresolved !== undefined) scope.out.push({ views: [], text, transparent: false, unresolved: tool.unresolved });
    for (const script of tool.scripts ?? []) nested(script, base, text, scope);
    for (const argv of tool.runs ?? []) resolveCommand({ words: argv }, text, scope);
    break;
  }
  resolving.push();
}

/** A shell's run: a script checked in turn (the shell itself is transparent), a file judged by the name, or a question. */
function shell(run: ShellRun, base: string, command: Pick<ParsedCommand, 'stdin'>, resolving: Resolving): void {
  const resolved = 'stdin' in run ? stdinScript(base, command.stdin) : run;
  if ('unresolved' in resolved) return resolving.push({ unresolved: resolved.unresolved });
  if ('script' in resolved) {
    resolving.push({ transparent: true });
    resolveScript(resolved.script, resolving.scope.depth + 1, resolving.scope.out);
    return;
  }
  resolving.push();
}

function trap(words: Word[], resolving: Resolving): void {
  resolving.push();
  const args = words.slice(1).filter((word) => word !== '--');
  const action = args[0];
  if (args.length >= 2 && action !== '-' && !action?.startsWith('-')) nested(action ?? null, 'trap', resolving.text, resolving.scope);
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

/** The first line of a script, trimmed and cut at 80 characters (without copying the rest of a long script). */
function firstLine(script: string): string {
  let start = 0;
  while (start < script.length && /\s/.test(script[start]!)) start += 1;
  const newline = script.indexOf('\n', start);
  const line = script.slice(start, newline < 0 ? script.length : newline).trimEnd();
  return line.length > 80 ? `${line.slice(0, 80)}…` : line;
}
