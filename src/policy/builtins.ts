// Builtins that make a later name run other code (`hash -p PATH NAME`, `enable -f LIB NAME`): they ask; and
// `mapfile -C CALLBACK`, whose callback bash evaluates as a command with an index and a line of input appended.
import { unresolvedWhy } from '../contract/index.js';
import { getopt, values } from './getopt.js';
import type { Word } from './parse.js';

/** The option of each builtin that rebinds a command name. */
const REBINDING: Readonly<Record<string, string>> = { hash: 'p', enable: 'f' };

/** Why `words` (builtin `base`) asks, if it rebinds a name or cannot be read. */
export function rebinding(base: string, words: readonly Word[]): string | undefined {
  const letter = REBINDING[base];
  if (letter === undefined) return undefined;
  for (const word of words.slice(1)) {
    if (word === '--' || (word !== null && !word.startsWith('-'))) return undefined;
    if (word === null) return unresolvedWhy.dynamicOption(base);
    if (word.includes(letter)) return unresolvedWhy.rebind(base, `-${letter}`);
  }
  return undefined;
}

const MAPFILE = { short: 'd:n:O:s:tu:C:c:' };

/** The script `mapfile`/`readarray` evaluates for its callback (null: not literal), or why it cannot be read. */
export function mapfileCallback(base: string, words: readonly Word[]): { script: Word } | { unresolved: string } | undefined {
  const parsed = getopt(base, MAPFILE, words, 1);
  if ('unresolved' in parsed) return parsed;
  const callback = values(parsed, 'C').at(-1);
  if (callback === undefined) return undefined;
  // bash appends the element's index and the line, quoted, and evaluates the whole text.
  return { script: callback === null ? null : `${callback} "$index" "$line"` };
}
