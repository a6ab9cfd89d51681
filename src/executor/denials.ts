// What a confined command's stderr says the sandbox refused: a write the mode denies, or a path outside what the
// session can read (hidden by bubblewrap's view: ENOENT; refused by Landlock: EACCES). The one fact still read from
// output, because only the kernel knows it: the confinement refuses a system call of the command itself, which
// neither the runner nor the supervisor sees. Judged against the call's own plan, in memory: no filesystem call.
import { posix } from 'node:path';
import type { ConfinementPlan } from './wire/plan.js';
import { VIEW_KERNEL, VIEW_SYSTEM } from '../contract/index.js';

/** How Landlock and bubblewrap write denials read on stderr (EACCES, EPERM, EROFS as the shell and coreutils print them). */
const DENIAL = /Permission denied|Operation not permitted|Read-only file system/;

/** A line that says a path is missing or refused, as coreutils, bash, Python and Node word ENOENT and EACCES. */
const MISSING_OR_REFUSED = /No such file or directory|Permission denied|ENOENT|EACCES/i;

/** A path a tool names in its error: quoted ('…', "…", ‘…’, `…'), or bare after a separator and up to one. */
const QUOTED = /['"‘`](\/[^'"’\n]*)['"’]/g;
const BARE = /(?:^|[\s(=,])(\/[^\s:'",)]*)/g;

/** The parts of a plan that say what a command can read. */
export type ReadView = Pick<ConfinementPlan, 'view' | 'readable' | 'writable' | 'hidden' | 'denied'>;

export interface Denials {
  /** A denial that no path outside the read view explains: the write mode refused something. */
  writeDenied: boolean;
  /** Paths the command named as missing or refused that the session cannot read, in the order first named. */
  unreadable: string[];
}

/** Whether `path` is `root` or lies beneath it, by whole components. */
function beneath(path: string, root: string): boolean {
  const base = root.length > 1 ? root.replace(/\/+$/, '') : root;
  return path === base || path.startsWith(base === '/' ? '/' : `${base}/`);
}

/** Whether the plan lets the command read `path`: shown by its view and not under a masked entry. */
export function readable(plan: ReadView, path: string): boolean {
  if (plan.denied.some((entry) => path !== entry && beneath(path, entry))) return false;
  const own = [...plan.readable, ...plan.writable].some((root) => beneath(path, root));
  if (plan.view === 'host') return own || !plan.hidden.some((root) => beneath(path, root));
  return own || [...VIEW_SYSTEM, ...VIEW_KERNEL].some((root) => beneath(path, root));
}

/** The absolute paths one error line names. */
function pathsOf(line: string): string[] {
  const found = [...line.matchAll(QUOTED)].map((match) => match[1]!);
  const bare = line.replace(QUOTED, ' ');
  found.push(...[...bare.matchAll(BARE)].map((match) => match[1]!));
  return found.map((path) => posix.normalize(path)).map((path) => (path.length > 1 ? path.replace(/\/$/, '') : path));
}

/**
 * Judges the stderr `text` of a confined command by its `plan` (undefined: a plan another host completes, whose view
 * this host cannot tell, so every denial counts as the write mode's). `failed`: the command exited non-zero (a write
 * denial is reported only then, as before; a read refusal whatever the exit, since the model reads the error either
 * way). Only absolute paths are judged: a relative one would need the command's directory, which the line lacks.
 */
export function judgeDenials(text: string, plan: ReadView | undefined, failed: boolean): Denials {
  const unreadable = new Set<string>();
  let writeDenied = false;
  for (const line of text.split('\n')) {
    const denial = DENIAL.test(line);
    if (!denial && (plan === undefined || !MISSING_OR_REFUSED.test(line))) continue;
    const outside = plan && MISSING_OR_REFUSED.test(line) ? pathsOf(line).filter((path) => !readable(plan, path)) : [];
    for (const path of outside) unreadable.add(path);
    if (denial && outside.length === 0) writeDenied = true;
  }
  return { writeDenied: failed && writeDenied, unreadable: [...unreadable] };
}
