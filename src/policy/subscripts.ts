// Literal text bash may still run: a word or value like `a[$(cmd)]` is inert where it is written, but bash expands
// the subscript, command substitution included, wherever it reads the text as a variable name or a number
// (`printf -v`, `test -v`, `let`, `declare -n`, `$(( x ))`, `${!x}`, `[[ $x -eq 1 ]]`).
import type { Word } from './parse.js';

/** The end of a name followed by `[`. */
const SUBSCRIPT_OPEN = /[A-Za-z0-9_]\[/;
/** `$(` (not `$((`), a backquote, or bash 5.3's `${ cmd; }` and `${| cmd; }`. */
const SUBSTITUTION = /\$\((?!\()|`|\$\{[\s|]/;

/** Whether a substitution follows a subscript's opening: two linear scans, whatever the text. */
export function holdsSubscriptCode(text: Word): boolean {
  if (text === null) return false;
  const open = text.search(SUBSCRIPT_OPEN);
  return open >= 0 && SUBSTITUTION.test(text.slice(open));
}
