// A model of GNU getopt_long over a command's literal words: which words are a program's own options (and their
// arguments) and which are operands, exactly as the program's option table says; anything it cannot tell asks.
import { unresolvedWhy } from '../contract/index.js';
import type { Word } from './parse.js';

/** How an option takes its argument: none, always (attached or the next word), or only attached (`-t5`, `--t=5`). */
export type Arity = 'none' | 'required' | 'optional';

export interface OptionTable {
  /** getopt's short option string: a leading `+` stops at the first operand, `x:` takes an argument, `x::` an attached one. */
  short: string;
  /** Long options (without `--`): an arity, or an arity and the short letter it stands for. */
  long?: Readonly<Record<string, Arity | readonly [Arity, string]>>;
  /** A unique prefix of a long option names it (`--sig` is `--signal`), as getopt_long and optparse allow. */
  abbreviations?: boolean;
  /** `-N` (digits) is an option too, as `nice -10` is. */
  numeric?: boolean;
  /** A short option's argument may follow an `=` (`-n=ns`), as Go's flag packages allow. */
  shortEquals?: boolean;
}

interface Compiled {
  permute: boolean;
  short: Map<string, Arity>;
  long: Map<string, { arity: Arity; key: string }>;
  table: OptionTable;
}

export interface ParsedOption {
  /** The short letter, or the long name of an option that has no letter. */
  key: string;
  value?: Word;
}

/** `dynamic`: a word that is not literal stood where an option may be. */
export type Parsed = { options: ParsedOption[]; operands: Word[] } | { unresolved: string; dynamic?: true };

const compiled = new WeakMap<OptionTable, Compiled>();

function compile(table: OptionTable): Compiled {
  let found = compiled.get(table);
  if (found) return found;
  const short = new Map<string, Arity>();
  const spec = table.short.replace(/^[+-]?:?/, '');
  for (let i = 0; i < spec.length; i += 1) {
    const letter = spec[i]!;
    if (spec[i + 1] === ':' && spec[i + 2] === ':') {
      short.set(letter, 'optional');
      i += 2;
    } else if (spec[i + 1] === ':') {
      short.set(letter, 'required');
      i += 1;
    } else short.set(letter, 'none');
  }
  const long = new Map<string, { arity: Arity; key: string }>();
  for (const [name, entry] of Object.entries(table.long ?? {})) {
    const [arity, letter] = typeof entry === 'string' ? [entry, undefined] : entry;
    long.set(name, { arity, key: letter ?? name });
  }
  found = { permute: !table.short.startsWith('+'), short, long, table };
  compiled.set(table, found);
  return found;
}

function longOption(table: Compiled, name: string): { arity: Arity; key: string } | undefined {
  const exact = table.long.get(name);
  if (exact || !table.table.abbreviations || name === '') return exact;
  const matches = [...table.long.keys()].filter((candidate) => candidate.startsWith(name));
  const keys = new Set(matches.map((candidate) => table.long.get(candidate)!.key));
  return keys.size === 1 ? table.long.get(matches[0]!) : undefined;
}

/**
 * Parses `words` from index `from` as `program`'s getopt would: a `+` table stops at the first operand, a permuting
 * one collects operands from anywhere before `--`.
 */
export function getopt(program: string, table: OptionTable, words: readonly Word[], from = 1): Parsed {
  const t = compile(table);
  const options: ParsedOption[] = [];
  const operands: Word[] = [];
  const unknown = (option: string): Parsed => ({ unresolved: unresolvedWhy.unknownOption(program, option) });
  let i = from;
  while (i < words.length) {
    const word = words[i];
    // A non-literal word may expand to options, or to no word at all.
    if (word === null) return { unresolved: unresolvedWhy.dynamicOption(program), dynamic: true };
    if (word === '--') {
      i += 1;
      break;
    }
    if (word.startsWith('--')) {
      const eq = word.indexOf('=');
      const name = word.slice(2, eq < 0 ? undefined : eq);
      const option = longOption(t, name);
      if (!option) return unknown(`--${name}`);
      if (option.arity === 'none') {
        if (eq >= 0) return unknown(word);
        options.push({ key: option.key });
        i += 1;
      } else if (eq >= 0) {
        options.push({ key: option.key, value: word.slice(eq + 1) });
        i += 1;
      } else if (option.arity === 'optional') {
        options.push({ key: option.key });
        i += 1;
      } else {
        if (i + 1 >= words.length) return unknown(word);
        options.push({ key: option.key, value: words[i + 1]! });
        i += 2;
      }
      continue;
    }
    if (word.startsWith('-') && word !== '-') {
      if (table.numeric && /^-[-+]?\d/.test(word)) {
        options.push({ key: 'numeric', value: word.slice(1) });
        i += 1;
        continue;
      }
      let next = i + 1;
      for (let j = 1; j < word.length; j += 1) {
        const letter = word[j]!;
        const arity = t.short.get(letter);
        if (arity === undefined) return unknown(`-${letter}`);
        if (arity === 'none') {
          options.push({ key: letter });
          continue;
        }
        let attached = word.slice(j + 1);
        if (table.shortEquals && attached.startsWith('=')) attached = attached.slice(1);
        if (attached !== '' || arity === 'optional') {
          options.push(attached === '' ? { key: letter } : { key: letter, value: attached });
        } else {
          if (i + 1 >= words.length) return unknown(`-${letter}`);
          options.push({ key: letter, value: words[i + 1]! });
          next = i + 2;
        }
        break;
      }
      i = next;
      continue;
    }
    if (!t.permute) break;
    operands.push(word);
    i += 1;
  }
  for (; i < words.length; i += 1) operands.push(words[i]!);
  return { options, operands };
}

/** Whether `parsed` holds option `key` (a letter or a long name). */
export function has(parsed: { options: readonly ParsedOption[] }, ...keys: string[]): boolean {
  return parsed.options.some((option) => keys.includes(option.key));
}

/** The values of option `key`, in order. */
export function values(parsed: { options: readonly ParsedOption[] }, key: string): Word[] {
  return parsed.options.filter((option) => option.key === key && option.value !== undefined).map((option) => option.value!);
}
