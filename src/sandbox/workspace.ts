// A session's workspace root, pinned: resolved once when the session opens (off the event loop, before its first
// call runs), checked unchanged at each confined call, and never nested in another live session's workspace (whose
// commands could swap a component of its path).
import { realpathSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { ShellringError } from '../errors.js';
import { workspaceRootErrors } from '../contract/index.js';

export interface PinnedRoot {
  /** The canonical path at open. */
  path: string;
  /** The directory it named then; undefined when it did not exist (the call then fails on its working directory). */
  identity?: { dev: number; ino: number };
}

export function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** `canonical`, for a call: off the event loop. */
export async function canonicalNow(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return resolve(path);
  }
}

/** The root of a session opening at `cwd`, resolved and identified; a missing one has no identity, any other failure
 * to stat it (a component that is no directory) rejects. */
export async function pinRoot(cwd: string): Promise<PinnedRoot> {
  const path = await canonicalNow(cwd);
  const found = await stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  return { path, identity: found && { dev: found.dev, ino: found.ino } };
}

/**
 * The pinned path, when it still names the directory it named at open (one stat, no re-resolution: a component
 * swapped for a symlink to elsewhere names another directory, and the call is refused).
 */
export async function verifiedRoot(pin: PinnedRoot): Promise<string> {
  if (pin.identity) {
    const now = await stat(pin.path).catch(() => undefined);
    if (!now || now.dev !== pin.identity.dev || now.ino !== pin.identity.ino) {
      throw new ShellringError('SHELLRING_SANDBOX_ROOT', workspaceRootErrors.moved(pin.path));
    }
  }
  return pin.path;
}

/** Why a session with `root` may not open beside the live sessions' roots, if it may not. Equal roots share. */
export function nestingProblem(root: string, others: Iterable<{ id: string; root: string }>): string | undefined {
  const within = (inner: string, outer: string) => inner.startsWith(outer === sep ? sep : outer + sep);
  for (const other of others) {
    if (within(root, other.root)) return workspaceRootErrors.insideOther(other.id, other.root);
    if (within(other.root, root)) return workspaceRootErrors.containsOther(other.id, other.root);
  }
  return undefined;
}
