// Where `serve` gets its bearer token: --token-file, else SHELLRING_TOKEN, else the config file's serve.tokenFile,
// else none (the server generates one). A token file must be the owner's alone, under one name, in a directory the
// sessions' view can hide; a token from the environment is removed from it, so no child process inherits it.
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, resolve, sep } from 'node:path';
import { checkTokenValue } from '../faces/http/token.js';
import { STAND_INS } from '../env/non-interactive.js';
import { hostReadPaths } from '../sandbox/read-policy.js';
import { usageError } from './args.js';

export interface TokenSource {
  token: string;
  /** The file it came from, when it came from one. */
  file?: string;
}

export function tokenOption(flag: string | boolean | undefined, env: NodeJS.ProcessEnv, configured?: string): TokenSource | undefined {
  if (typeof flag === 'string') return fromFile(flag, `--token-file '${flag}'`);
  const value = env.SHELLRING_TOKEN;
  if (value !== undefined) {
    delete env.SHELLRING_TOKEN;
    return { token: judged(value, 'SHELLRING_TOKEN') };
  }
  if (configured !== undefined) return fromFile(configured, `serve.tokenFile '${configured}'`);
  return undefined;
}

function fromFile(file: string, source: string): TokenSource {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw usageError(`cannot read ${source}: ${(error as Error).message}`);
  }
  // One trailing newline is what `echo ... > file` leaves; it is not part of the token.
  const token = judged(text.replace(/\r?\n$/, ''), source);
  private_(file, source);
  return { token, file };
}

/**
 * Refused, not warned about: whoever can read the token can run any command as this server, and a warning scrolls
 * by in a log while the server keeps serving. The fix is one chmod, or one copy.
 */
function private_(file: string, source: string): void {
  const { mode, nlink } = statSync(file);
  if ((mode & 0o077) !== 0) {
    const octal = (mode & 0o777).toString(8).padStart(4, '0');
    throw usageError(
      `refusing ${source}: group or others can read or change it (mode ${octal}), and whoever reads the token can run commands as this server; run chmod 600 '${file}'`,
    );
  }
  // The view hides the file's directory; another hard link is the same file under a name it does not hide.
  if (nlink > 1) {
    throw usageError(
      `refusing ${source}: it has ${nlink} hard links, and a command could read the token through a name outside the directory hidden from it (one in a workspace, say); copy the token to a new file and remove every other name`,
    );
  }
}

function judged(token: string, source: string): string {
  try {
    return checkTokenValue(token, source);
  } catch (error) {
    throw usageError((error as Error).message);
  }
}

/** Directories a confined command needs to see: hiding one of them to hide a token file would break every command. */
const SHARED_DIRECTORIES = new Set(['/', '/etc', '/usr', '/bin', '/sbin', '/lib', '/lib64', '/opt', '/var', '/dev', '/proc', '/sys', '/run', '/tmp', '/var/tmp', '/home']);

/** A tree the session view shows besides the system's, and what it is (for the refusal). */
export interface ShownTree {
  path: string;
  what: string;
}

/** The trees a session view shows besides the system's: the workspace, readAllow, the toolchains on PATH, the
 * stand-ins for editors and password prompts. */
export async function shownTrees(workspace: string, readAllow: readonly string[] = []): Promise<ShownTree[]> {
  return [
    { path: workspace, what: 'the workspace' },
    ...readAllow.map((path) => ({ path, what: 'the readAllow path' })),
    ...(await hostReadPaths()).toolchains.map((path) => ({ path, what: 'the toolchain directory' })),
    { path: STAND_INS, what: "shellring's own directory" },
  ];
}

/**
 * The directory to hide from confined commands so they cannot read the token file (the runner shows it empty):
 * the file's own directory, which must be neither a directory every command needs nor overlap a tree the view
 * shows on its own (the workspace, readAllow, a toolchain): inside one, or holding one, it would be shown anyway.
 */
export function tokenDirectory(file: string, shown: readonly ShownTree[]): string {
  const dir = dirname(canonical(file));
  const inside = (a: string, b: string) => a === b || a.startsWith(b.endsWith(sep) ? b : b + sep);
  let why: string | undefined;
  if (SHARED_DIRECTORIES.has(dir) || dir === canonical(homedir())) why = `${dir} is a directory every command needs`;
  for (const tree of shown) {
    const path = canonical(tree.path);
    if (!why && (inside(dir, path) || inside(path, dir))) why = `${dir} overlaps ${tree.what} ${path}`;
  }
  if (why) {
    throw usageError(
      `confined commands could read the token file '${file}': its directory cannot be hidden from them (${why}); keep the token in a directory of its own, e.g. /etc/shellring/token`,
    );
  }
  return dir;
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
