// The runtime's private spill directory (0700, unpredictable name, locked while the runtime lives) with one subdirectory per session.
// Startup-only synchronous calls: the root is made and locked once, in the constructor.
import { chmodSync, mkdtempSync } from 'node:fs';
import { mkdir, rm, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CaptureBackend } from '../capture/types.js';
import { loadBinding } from '../native/loader.js';
import type { SpillPlace } from './types.js';

interface SessionSpills {
  dir: string;
  /** Settles when the directory has been made (by this or by the capture's first spill), with why it could not be. */
  made: Promise<string | undefined>;
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
    // Startup only (the executor's constructor, once per runtime, before any command runs): no call waits on it, and
    // the root must exist and be locked before a call can name a spill path in it. mkdtemp picks a fresh random name and fails rather than reuse one, so no other user can pre-create it.
    this.root = mkdtempSync(join(base, 'shellring-'));
    chmodSync(this.root, 0o700);
    this.#keep = keep;
    if (!keep) this.#lock = binding.lockSpillRoot(this.root);
  }

  /**
   * The session's directory, and a promise of why it could not be made (the disk is full, the parent is gone),
   * settled once it is made. It is made off the event loop, so a call never waits on the disk for it; a command
   * that spills first has its capture make it (0700, inside the root only). A root a command removed is made
   * again here (and locked again), a session directory by the capture at its next spill (with the root, should
   * that be gone too). Session ids never become path components.
   */
  dirFor(sessionId: string | undefined): SpillPlace {
    const key = sessionId ?? '';
    let session = this.#sessions.get(key);
    if (!session) {
      const dir = join(this.root, `session-${this.#next++}`);
      session = { dir, made: this.#make(dir), settled: 0, live: new Set() };
      this.#sessions.set(key, session);
    }
    return session;
  }

  async #make(dir: string): Promise<string | undefined> {
    try {
      await mkdirOnce(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return (error as Error).message;
      // The root itself was removed: made again with its own mode (never a whole path: its parent must exist).
      try {
        await mkdirOnce(this.root);
        this.#relock();
        await mkdirOnce(dir);
      } catch (error) {
        return (error as Error).message;
      }
    }
    return undefined;
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
    // Its directory is being made: removed after, or it would be made again past its removal.
    await session.made;
    if (this.#keep) await removeIfEmpty(session.dir);
    else await rm(session.dir, { recursive: true, force: true });
  }

  async close(): Promise<void> {
    await Promise.all([...this.#sessions.keys()].map((key) => this.closeSession(key)));
    if (this.#keep) await removeIfEmpty(this.root);
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
/** One private directory; one that exists already (made by a capture meanwhile) is fine. */
async function mkdirOnce(dir: string): Promise<void> {
  try {
    await mkdir(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

async function removeIfEmpty(dir: string): Promise<void> {
  try {
    await rmdir(dir);
  } catch {
    // Not empty (a kept spill file), or already gone.
  }
}
