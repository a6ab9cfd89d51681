// The runtime's private spill directory (0700, unpredictable name) with one subdirectory per session.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export class SpillDirs {
  readonly root: string;
  readonly #sessions = new Map<string, string>();
  readonly #keep: boolean;
  #next = 1;

  constructor(parent: string | undefined, keep: boolean) {
    // mkdtemp picks a fresh random name and fails rather than reuse one, so no other user can pre-create it.
    this.root = mkdtempSync(join(parent ?? tmpdir(), 'shellring-'));
    chmodSync(this.root, 0o700);
    this.#keep = keep;
  }

  /** The session's directory, created on first use; undefined when it cannot be made (the root was removed,
   * the disk is full): the call then runs with no spill file. Session ids never become path components. */
  dirFor(sessionId: string | undefined): string | undefined {
    const key = sessionId ?? '';
    let dir = this.#sessions.get(key);
    if (!dir) {
      dir = join(this.root, `session-${this.#next++}`);
      try {
        mkdirSync(dir, { mode: 0o700 });
      } catch {
        return undefined;
      }
      this.#sessions.set(key, dir);
    }
    return dir;
  }

  /** Bytes the session's spill files hold now. */
  used(sessionId: string | undefined): number {
    const dir = this.#sessions.get(sessionId ?? '');
    if (!dir) return 0;
    let bytes = 0;
    try {
      for (const name of readdirSync(dir)) {
        try {
          bytes += statSync(join(dir, name)).size;
        } catch {
          // Removed while we looked: it holds nothing.
        }
      }
    } catch {
      return 0;
    }
    return bytes;
  }

  closeSession(sessionId: string | undefined): void {
    const key = sessionId ?? '';
    const dir = this.#sessions.get(key);
    if (!dir) return;
    this.#sessions.delete(key);
    if (this.#keep) removeIfEmpty(dir);
    else rmSync(dir, { recursive: true, force: true });
  }

  close(): void {
    for (const key of [...this.#sessions.keys()]) this.closeSession(key);
    if (this.#keep) removeIfEmpty(this.root);
    else rmSync(this.root, { recursive: true, force: true });
  }
}

/** Kept spill files stay; directories that hold none do not. */
function removeIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // Not empty (a kept spill file), or already gone.
  }
}
