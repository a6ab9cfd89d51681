// Aliases a script defines: `bash -c` leaves them unexpanded, but sh, bash in POSIX mode (`set -o posix`,
// POSIXLY_CORRECT) and interactive shells expand them, so a command named by one may run other words; it asks.
import { unresolvedWhy } from '../contract/index.js';
import type { Invocation } from './resolve.js';

/** Words bash reads as keywords before it looks for an alias: an alias of one could reshape compound commands. */
const RESERVED: ReadonlySet<string> = new Set([
  '!', '[[', ']]', '{', '}', 'case', 'coproc', 'do', 'done', 'elif', 'else', 'esac', 'fi', 'for', 'function', 'if', 'in', 'select', 'then',
  'time', 'until', 'while',
]);

/** Marks every invocation named by an alias the script (or a script it runs) defines, and each definition that cannot be read. */
export function markAliasUses(out: Invocation[]): void {
  const names = new Set<string>();
  for (const invocation of out) {
    for (const words of invocation.views) {
      if (words[0] !== 'alias') continue;
      for (const word of words.slice(1)) {
        if (word === null) invocation.unresolved ??= unresolvedWhy.dynamicAlias;
        const eq = word?.indexOf('=') ?? -1;
        if (eq <= 0) continue;
        const name = word!.slice(0, eq);
        names.add(name);
        if (RESERVED.has(name)) invocation.unresolved ??= unresolvedWhy.aliasUse(name);
      }
    }
  }
  if (names.size === 0) return;
  for (const invocation of out) {
    const used = invocation.views.find((words) => words[0] !== null && words[0] !== undefined && names.has(words[0]));
    if (used) invocation.unresolved ??= unresolvedWhy.aliasUse(used[0]!);
  }
}
