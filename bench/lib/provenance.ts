// Where a suite's figures come from: the commit whose code was measured (and whether the tree held changes beyond
// it), the machine, the load it started under and the date; and whether a stored result's code is still in this
// checkout's history.
import { execFileSync } from 'node:child_process';
import type { Machine } from './machine.js';

export interface Provenance {
  date: string;
  commit: string;
  /** The working tree differed from `commit` (results files aside): the code measured is in no commit. */
  dirty: boolean;
  machine: Machine;
  /** The 1-minute load average when the suite started (missing in records made before it was kept). */
  startLoad?: number;
}

function git(repo: string, args: string[]): string {
  return execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
}

/** The commit checked out in `repo` and whether anything but the results differs from it. */
export function codeState(repo: string): { commit: string; dirty: boolean } {
  const commit = git(repo, ['rev-parse', 'HEAD']);
  const changes = git(repo, ['status', '--porcelain', '--', '.', ':(exclude)bench/results']);
  return { commit, dirty: changes !== '' };
}

/** The provenance of a suite that ends now, having started on `machine` under `startLoad`. */
export function provenance(code: { commit: string; dirty: boolean }, machine: Machine, startLoad: number): Provenance {
  return { date: new Date().toISOString(), ...code, machine, startLoad };
}

/** Why a stored result cannot be shown for `repo`'s code, or undefined when it can. */
export function unshowable(repo: string, result: Partial<Provenance>): string | undefined {
  if (!result.date || !result.commit || result.dirty === undefined || !result.machine) return 'no provenance';
  if (result.dirty) return `measured with uncommitted changes on ${result.commit.slice(0, 10)}`;
  try {
    git(repo, ['merge-base', '--is-ancestor', result.commit, 'HEAD']);
  } catch {
    return `measured on ${result.commit.slice(0, 10)}, not in this history`;
  }
  return undefined;
}
