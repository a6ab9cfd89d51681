// The read policy's host paths: the credential stores denied by default, and what this host's directories make of
// the policy now (crates/hostpaths: the runner derives it with the same code for a remote host's commands). Kept while
// the directories it listed are unchanged (see watched.ts): a home or key file made after start is denied too, and a
// warm confined call reads nothing from the disk.
import { homedir } from 'node:os';
import { dirname } from 'node:path';
import { z } from 'zod';
import type { HostReadPaths } from '../native/binding.js';
import { loadBinding } from '../native/loader.js';
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
  // A toolchain home the session view shows keeps its registry tokens here.
  '~/.cargo/credentials',
  '~/.cargo/credentials.toml',
] as const;

export const readDenyEntry = z
  .string()
  .refine((entry) => entry.startsWith('/') || entry.startsWith('~/'), { message: 'expected an absolute path or one starting with ~/' })
  .refine((entry) => !dirname(entry).includes('*'), { message: 'a * may only appear in the last path component' });

/** What `entries` (read-deny entries) and `path` (a PATH value) name on this host now. */
export function hostReadPaths(entries: readonly string[] = DEFAULT_READ_DENY, path = process.env.PATH ?? ''): Promise<HostReadPaths> {
  const home = homedir();
  return watched(
    [home, path, ...entries].join('\0'),
    () => loadBinding().hostReadPaths([...entries], path, home),
    (found) => found.consulted,
  );
}
