// The runtime's private spill directory (0700, unpredictable name, locked while the runtime lives) with one subdirectory per session.
import { chmodSync, mkdirSync, mkdtempSync, rmdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CaptureBackend } from '../capture/types.js';
import { loadBinding } from '../native/loader.js';

interface SessionSpills {
  dir: string;
  /** Bytes in the complete spill files of the session's released commands. */
  settled: number;
  /** Captures of commands still running, whose spill files may grow. */
  live: Set<number>;
}

export class SpillDirs {
  readonly root: string;
  readonly #sessions = new Map<string, SessionSpills>();
  readonly #keep: boolean;
  /** The fd holding the root's lock marker; a root whose lock nobody holds is a crashed runtime's. */
  #lock: number | undefined;
  #next = 1;

  constructor(parent: string | undefined, keep: boolean) {
    const base = parent ?? tmpdir();
    const binding = loadBinding();
    // Roots of runtimes that died without closing (their lock died with them). Roots that keep their spill
    // files on purpose carry no lock marker and are never touched.
    binding.reclaimSpillRoots(base);
    // mkdtemp picks a fresh random name and fails rather than reuse one, so no other user can pre-create it.
    this.root = mkdtempSync(join(base, 'shellring-'));
    chmodSync(this.root, 0o700);
    this.#keep = keep;
    if (!keep) this.#lock = binding.lockSpillRoot(this.root);
  }

  /**
   * The session's directory, created on first use, or why there is none (the disk is full, the parent is gone):
   * the call then runs with no spill file and its result says why. Session ids never become path components. A
   * root a command removed is made again here (and locked again), a session directory by the capture at its next
   * spill (with the root, should that be gone too).
   */
  dirFor(sessionId: string | undefined): { dir: string } | { problem: string } {
    const key = sessionId ?? '';
    let session = this.#sessions.get(key);
    if (!session) {
      const dir = join(this.root, `session-${this.#next++}`);
      try {
        this.#mkdir(dir);
      } catch (error) {
        return { problem: (error as Error).message };
      }
      session = { dir, settled: 0, live: new Set() };
      this.#sessions.set(key, session);
    }
    return { dir: session.dir };
  }

  #mkdir(dir: string): void {
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      // The root itself was removed: made again with its own mode (never a whole path: its parent must exist).
      mkdirSync(this.root, { mode: 0o700 });
      this.#relock();
      mkdirSync(dir, { mode: 0o700 });
    }
  }

  /** The old lock marker went with the old root: a new one, so a crash still leaves a root the next start reclaims. */
  #relock(): void {
    if (this.#keep) return;
    const binding = loadBinding();
    if (this.#lock !== undefined) binding.closeFd(this.#lock);
    this.#lock = undefined;
    this.#lock = binding.lockSpillRoot(this.root);
  }

  /**
   * Bytes the session's spill files hold, kept incrementally (no directory read on the main thread): the complete
   * files of released commands plus what running commands' files hold now (read from their captures without
   * waiting). A file a command deletes gives its bytes back only when the session closes.
   */
  used(sessionId: string | undefined, capture: CaptureBackend): number {
    const session = this.#sessions.get(sessionId ?? '');
    if (!session) return 0;
    let bytes = session.settled;
    for (const id of session.live) bytes += spilledNow(capture, id);
    return bytes;
  }

  /** A command of the session started with this capture. */
  opened(sessionId: string | undefined, captureId: number): void {
    this.#sessions.get(sessionId ?? '')?.live.add(captureId);
  }

  /** The command's capture is released; `spilledBytes` stay in its complete spill files. */
  released(sessionId: string | undefined, captureId: number, spilledBytes: number): void {
    const session = this.#sessions.get(sessionId ?? '');
    if (!session?.live.delete(captureId)) return;
    session.settled += spilledBytes;
  }

  /** Removes the session's spill files off the event loop: freeing a large file's pages takes milliseconds. */
  async closeSession(sessionId: string | undefined): Promise<void> {
    const key = sessionId ?? '';
    const session = this.#sessions.get(key);
    if (!session) return;
    this.#sessions.delete(key);
    if (this.#keep) removeIfEmpty(session.dir);
    else await rm(session.dir, { recursive: true, force: true });
  }

  async close(): Promise<void> {
    await Promise.all([...this.#sessions.keys()].map((key) => this.closeSession(key)));
    if (this.#keep) removeIfEmpty(this.root);
    else await rm(this.root, { recursive: true, force: true });
    if (this.#lock !== undefined) loadBinding().closeFd(this.#lock);
    this.#lock = undefined;
  }
}

/** Bytes a live capture's spill files hold now. */
function spilledNow(capture: CaptureBackend, id: number): number {
  let bytes = 0;
  try {
    for (const stream of [0, 1] as const) {
      const info = capture.info(id, stream);
      if (info.spill === 'active' || info.spill === 'complete') bytes += info.total;
    }
  } catch {
    // Freed meanwhile: its bytes were counted at release.
  }
  return bytes;
}

/** Kept spill files stay; directories that hold none do not. */
function removeIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // Not empty (a kept spill file), or already gone.
  }
}
