// Stripping an exec wrapper: its options parsed as its getopt table says (wrapper-table.ts), then the command it
// runs, a script it gives a shell, or nothing; an option it does not know, or a word it cannot read, asks.
import { unresolvedWhy } from '../contract/index.js';
import { getopt, has, values, type ParsedOption } from './getopt.js';
import type { Word } from './parse.js';
import { OPAQUE_RUNNERS, WRAPPERS, type WrapperSpec } from './wrapper-table.js';

export interface Run {
  /** The argv it runs (`['sh', '-c', script]` for a script it gives a shell; `['sh']` for an interactive one); empty: nothing. */
  run: Word[];
  /** `NAME=value` pairs it puts in the command's environment. */
  environment?: [string, Word][];
  /** Shell scripts it runs besides the command (`strace -o '|cmd'`). */
  also?: Word[];
  /** Why a null word it added stands for words nobody can see (`xargs` appends what it reads). */
  note?: string;
}

export type Stripped = Run | { unresolved: string };

/** The wrappers that run another command with more privileges: the evaluation notes them. */
export const PRIVILEGE_WRAPPERS: ReadonlySet<string> = new Set(['sudo', 'doas', 'pkexec', 'su', 'runuser', 'setpriv']);

export function isWrapper(base: string): boolean {
  return Object.hasOwn(WRAPPERS, base) || OPAQUE_RUNNERS.has(base);
}

/** What `words` (a wrapper's invocation, its name `base`) runs. */
export function stripWrapper(base: string, words: readonly Word[]): Stripped {
  if (OPAQUE_RUNNERS.has(base)) return { unresolved: unresolvedWhy.opaqueRunner(base) };
  const spec = WRAPPERS[base]!;
  switch (spec.form) {
    case 'sg':
      return sg(words);
    case 'newgrp':
      return { run: ['sh'] };
    case 'pkexec':
      return pkexec(words);
    case 'busybox':
      return busybox(words);
    case 'coproc':
      return coproc(words);
  }
  let from = 1;
  if (spec.form === 'setarch' && base === 'setarch') {
    if (words[1] === null) return { unresolved: unresolvedWhy.dynamicOption(base) };
    if (words[1] !== undefined && !words[1].startsWith('-')) from = 2;
  }
  const parsed = getopt(base, spec.options, words, from);
  if ('unresolved' in parsed) return parsed;
  if (spec.stops && has(parsed, ...spec.stops)) return { run: [] };
  const opaque = parsed.options.find((option) => spec.opaque?.includes(option.key));
  if (opaque) return { unresolved: unresolvedWhy.opaqueOption(base, shownOption(spec, opaque)) };
  const environment: [string, Word][] = [];
  for (const pair of spec.environment?.flatMap((key) => values(parsed, key)) ?? []) {
    if (pair === null) return { unresolved: unresolvedWhy.dynamicOption(base) };
    environment.push(split(pair));
  }
  const result = follow(base, spec, parsed.options, parsed.operands);
  if ('unresolved' in result || environment.length === 0) return result;
  return { ...result, environment: [...environment, ...(result.environment ?? [])] };
}

function follow(base: string, spec: WrapperSpec, options: ParsedOption[], operands: Word[]): Stripped {
  const parsed = { options };
  switch (spec.form) {
    case 'env':
      return env(options, operands);
    case 'flock':
      if (operands.length < 2) return { run: [] };
      if (operands[1] === '-c' || operands[1] === '--command') return operands.length === 3 ? { run: ['sh', '-c', operands[2]!] } : { run: [] };
      return { run: operands.slice(1) };
    case 'watch':
      if (has(parsed, 'x') || operands.length === 0) return { run: operands };
      if (operands.includes(null)) return { unresolved: unresolvedWhy.dynamicScript(base) };
      return { run: ['sh', '-c', operands.join(' ')] };
    case 'su':
    case 'runuser':
      return su(base, parsed, operands);
    case 'script': {
      const script = values(parsed, 'c').at(-1);
      return script === undefined ? { run: ['sh'] } : { run: ['sh', '-c', script] };
    }
    case 'runcon':
      return { run: options.length === 0 ? operands.slice(1) : operands };
    case 'xargs':
      return xargs(parsed, operands);
    case 'strace': {
      const also = values(parsed, 'o').filter((output) => output === null || /^[|!]/.test(output));
      if (also.includes(null)) return { unresolved: unresolvedWhy.dynamicOption(base) };
      const run: Run = { run: operands };
      if (also.length > 0) run.also = also.map((output) => output!.slice(1));
      return run;
    }
    case 'systemd-run': {
      // A unit property can run programs of its own (ExecStartPre=, ExecStopPost=, ...).
      const exec = values(parsed, 'p').find((property) => property === null || /^\s*exec/i.test(property));
      if (exec !== undefined) return { unresolved: unresolvedWhy.opaqueOption(base, '--property') };
      if (has(parsed, 'S')) return { run: ['sh'] };
      break;
    }
  }
  return positional(spec, operands);
}

/** The command after a wrapper's operands; what runs without one. */
function positional(spec: WrapperSpec, operands: Word[]): Stripped {
  let rest = operands;
  const environment: [string, Word][] = [];
  // sudo: `NAME=value` words before the command go into its environment.
  while (spec.assignments && rest[0] !== null && rest[0] !== undefined && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0])) {
    environment.push(split(rest[0]));
    rest = rest.slice(1);
  }
  if (spec.operands === 'priority') {
    // chrt: a priority is taken when it is all digits and a command follows (util-linux 2.40; 2.38 always takes one).
    if (rest.length > 1 && /^\d+$/.test(rest[0] ?? '')) rest = rest.slice(1);
  } else if (spec.operands) {
    if (rest.length < spec.operands) return { run: [] };
    rest = rest.slice(spec.operands);
  }
  const run: Run = { run: rest.length > 0 ? rest : spec.bare === 'shell' ? ['sh'] : [] };
  if (environment.length > 0) run.environment = environment;
  return run;
}

function env(options: ParsedOption[], operands: Word[]): Stripped {
  if (options.some((option) => option.key === 'S')) return { unresolved: unresolvedWhy.splitString };
  let i = operands[0] === '-' ? 1 : 0;
  const environment: [string, Word][] = [];
  for (; i < operands.length; i += 1) {
    const word = operands[i];
    if (word === null) return { unresolved: unresolvedWhy.dynamicOption('env') };
    if (!word.includes('=')) break;
    environment.push(split(word));
  }
  const run: Run = { run: operands.slice(i) };
  if (environment.length > 0) run.environment = environment;
  return run;
}

function su(base: string, parsed: { options: ParsedOption[] }, operands: Word[]): Stripped {
  const shell = values(parsed, 's').at(-1) ?? 'sh';
  const script = [...values(parsed, 'c'), ...values(parsed, 'C')].at(-1);
  if (script !== undefined) return { run: [shell, '-c', script] };
  // runuser -u USER runs its operands as a command, with no shell.
  if (base === 'runuser' && has(parsed, 'u')) return { run: operands };
  const args = operands.slice(operands[0] === '-' ? 2 : 1);
  return { run: [shell, ...args] };
}

function xargs(parsed: { options: ParsedOption[] }, operands: Word[]): Stripped {
  let replace: string | undefined;
  for (const option of parsed.options) {
    if (option.key === 'i') replace = option.value ?? '{}';
    if (option.key === 'I') {
      if (option.value === null || option.value === undefined) return { unresolved: unresolvedWhy.dynamicOption('xargs') };
      replace = option.value;
    }
  }
  if (operands.length === 0) return { run: [] };
  if (replace === undefined) return { run: [...operands, null], note: unresolvedWhy.inputWords('xargs') };
  // A word holding the replace string holds a line of the input.
  const marker = replace;
  return { run: operands.map((word) => (word?.includes(marker) ? null : word)), note: unresolvedWhy.inputWords('xargs') };
}

/** `sg [-|-l] GROUP [-c] COMMAND`: the command is one string for /bin/sh -c. */
function sg(words: readonly Word[]): Stripped {
  let i = words[1] === '-' || words[1] === '-l' ? 2 : 1;
  if (words[i] === null) return { unresolved: unresolvedWhy.dynamicOption('sg') };
  if (words[i] === undefined) return { run: ['sh'] };
  if (words[i]!.startsWith('-')) return { run: [] };
  i += 1;
  if (words[i] === '-c') i += 1;
  if (i >= words.length) return { run: ['sh'] };
  return { run: ['sh', '-c', words[i]!, ...words.slice(i + 1)] };
}

/** `pkexec [--user U] [--keep-cwd] [--disable-internal-agent] [--] PROGRAM [ARGS]`; no program: a shell. */
function pkexec(words: readonly Word[]): Stripped {
  let i = 1;
  for (; i < words.length; i += 1) {
    const word = words[i];
    if (word === null) return { unresolved: unresolvedWhy.dynamicOption('pkexec') };
    if (word === '--user') i += 1;
    else if (word === '--keep-cwd' || word === '--disable-internal-agent') continue;
    else if (word === '--help' || word === '--version') return { run: [] };
    else if (word === '--') {
      i += 1;
      break;
    } else if (word.startsWith('-')) return { unresolved: unresolvedWhy.unknownOption('pkexec', word) };
    else break;
  }
  return { run: i < words.length ? words.slice(i) : ['sh'] };
}

/** Words that open a compound command, which the grammar does not parse after `coproc [NAME]`. */
const COMPOUND: ReadonlySet<string> = new Set(['{', '(', '((', '[[', 'if', 'for', 'while', 'until', 'case', 'select', 'function']);

/** `coproc COMMAND` runs a simple command; `coproc [NAME] COMPOUND` one the checker does not see whole. */
function coproc(words: readonly Word[]): Stripped {
  if (words.slice(1, 3).some((word) => word !== null && COMPOUND.has(word))) return { unresolved: unresolvedWhy.coprocCompound };
  return { run: words.slice(1) };
}

function busybox(words: readonly Word[]): Stripped {
  const applet = words[1];
  if (applet === null) return { unresolved: unresolvedWhy.dynamicName };
  if (applet === undefined || applet.startsWith('-')) return { run: [] };
  return { run: words.slice(1) };
}

function split(pair: string): [string, Word] {
  const eq = pair.indexOf('=');
  return eq < 0 ? [pair, null] : [pair.slice(0, eq), pair.slice(eq + 1)];
}

function shownOption(spec: WrapperSpec, option: ParsedOption): string {
  if (option.key.length > 1) return `--${option.key}`;
  const long = Object.entries(spec.options.long ?? {}).find(([, entry]) => typeof entry !== 'string' && entry[1] === option.key);
  return long ? `--${long[0]}` : `-${option.key}`;
}
