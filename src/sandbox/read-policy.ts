// The read policy's paths: the credential stores denied by default, and what a session view shows beside the system
// (the command's toolchains under a home, and the expansion of ~/ and * in denied paths). Derived per confined call
// from what the directories hold now (kept while unchanged, see watched.ts): a home or key file made after start is
// denied too, and the event loop never waits on the disk.
import { lstat, readdir, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { z } from 'zod';
import { watched } from './watched.js';

/** The usual credential stores: never readable by a confined command, whatever the read policy. */
export const DEFAULT_READ_DENY = [
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/sudoers*',
  '/etc/ssh/*_key',
  '~/.ssh',
  '~/.aws',
  '~/.azure',
  '~/.config/gcloud',
  '~/.kube',
  '~/.docker/config.json',
  '~/.npmrc',
  '~/.netrc',
  '~/.pypirc',
  '~/.git-credentials',
  '~/.gnupg',
  '~/.config/gh',
  // A toolchain home the session view shows (see toolchains) keeps its registry tokens here.
  '~/.cargo/credentials',
  '~/.cargo/credentials.toml',
] as const;

export const readDenyEntry = z
  .string()
  .refine((entry) => entry.startsWith('/') || entry.startsWith('~/'), { message: 'expected an absolute path or one starting with ~/' })
  .refine((entry) => !dirname(entry).includes('*'), { message: 'a * may only appear in the last path component' });

/** The home directories of this host: root's, each under /home, and the runtime user's. */
export async function homes(): Promise<string[]> {
  const found = new Set<string>(['/root', homedir()]);
  try {
    for (const name of await dirEntries('/home')) found.add(join('/home', name));
  } catch {
    // No /home.
  }
  return [...found];
}

/** Every path an entry of readDeny names on this host now (`~/` under each home, `*` within the last component), in
 * the entries' order. */
export async function expandDenied(entries: readonly string[], homeDirs: readonly string[] | Promise<readonly string[]>): Promise<string[]> {
  const homes = await homeDirs;
  const paths = entries.flatMap((entry) => (entry.startsWith('~/') ? homes.map((home) => join(home, entry.slice(2))) : [entry]));
  const listed = new Map(await Promise.all(paths.filter(hasStar).map(async (path) => [path, await expandStar(path)] as const)));
  return [...new Set(paths.flatMap((path) => listed.get(path) ?? [path]))];
}

function hasStar(path: string): boolean {
  return path.slice(path.lastIndexOf('/') + 1).includes('*');
}

/** The entries of `path`'s directory its last component matches, `*` standing for any run of characters. */
async function expandStar(path: string): Promise<string[]> {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dir = dirname(path);
  const pattern = new RegExp(`^${name.split('*').map(escapeRegExp).join('.*')}$`);
  try {
    return (await dirEntries(dir)).filter((entry) => pattern.test(entry)).map((entry) => join(dir, entry));
  } catch {
    return [];
  }
}

/** The names in `dir` now (rejects as readdir does, for a directory that is absent or unreadable). */
function dirEntries(dir: string): Promise<readonly string[]> {
  return watched(dir, dir, () => readdir(dir));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The toolchains a session view shows read-only: for each PATH entry under a home, the home's directory that holds
 * it (~/.cargo, ~/.nvm, ~/.pyenv ...; ~/.local/bin itself, since ~/.local/share holds data), and ~/.rustup with
 * ~/.cargo (its proxies run the toolchains kept there).
 */
export function toolchains(path: string | undefined, homeDirs: readonly string[]): string[] {
  const out = new Set<string>();
  for (const entry of (path ?? '').split(':')) {
    const home = homeDirs.find((dir) => entry.startsWith(dir + sep));
    if (!home) continue;
    const top = entry.slice(home.length + 1).split(sep)[0]!;
    if (top === '.local') out.add(entry);
    else out.add(join(home, top));
    if (top === '.cargo') out.add(join(home, '.rustup'));
  }
  return [...out];
}

/** Where /etc/resolv.conf leads when it is a link out of /etc (systemd-resolved's stub): name resolution needs it. */
export function resolverTarget(): Promise<string | undefined> {
  return watched('resolver', '/etc', async () => {
    try {
      // Resolved only when it is a link: a plain file is in /etc, which the view shows.
      if (!(await lstat('/etc/resolv.conf')).isSymbolicLink()) return undefined;
      const target = await realpath('/etc/resolv.conf');
      return target.startsWith('/etc/') ? undefined : target;
    } catch {
      return undefined;
    }
  });
}
