// The per-stream spill file: created lazily at the first overflow, holding the whole stream, never throwing.
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import type { SpillState } from '../../../src/capture/types.js';

/**
 * Exclusive create so an existing file (another capture's, or a planted link) is never written through. libuv
 * adds O_CLOEXEC to every open on Linux, so a spawned child never inherits the descriptor.
 */
const CREATE_FLAGS = fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY;
const CREATE_MODE = 0o600;

export class Spill {
  state: SpillState = 'none';
  /** Set once this spill created its file: the only file it may ever remove. */
  path: string | undefined;
  private fd = -1;

  constructor(
    private readonly dir: string | undefined,
    private readonly fileName: string,
    /** The stream's tail cap: overflowing it is what starts the spill. */
    private readonly cap: number,
    private readonly spillCap: number,
  ) {}

  /** The path to report: only while the file holds (or held, at finish) the whole stream. */
  reportedPath(): string | undefined {
    return this.state === 'active' || this.state === 'complete' ? this.path : undefined;
  }

  /**
   * Runs before the tail takes `data`. `wholeStream` supplies the stream so far; it is only asked for at the
   * first overflow, when the tail has not dropped anything yet.
   */
  write(totalBefore: number, data: Uint8Array, wholeStream: () => Uint8Array): void {
    const totalAfter = totalBefore + data.length;
    if (this.state === 'none') {
      if (totalAfter > this.cap) this.start(totalAfter, wholeStream(), data);
    } else if (this.state === 'active') {
      if (totalAfter > this.spillCap) this.fail();
      else if (!this.append(data)) this.fail();
    }
  }

  /**
   * Closes the file; only a clean close of the file still named by `path` makes the spill complete. A deferred
   * write error can surface only at close, and a file unlinked or replaced underneath no longer holds the
   * stream at that path, so neither may be advertised.
   */
  finish(): void {
    if (this.state !== 'active') return;
    const fd = this.fd;
    const path = this.path!;
    this.fd = -1;
    this.state = 'unavailable';
    let same = false;
    try {
      const open = fs.fstatSync(fd);
      const named = fs.lstatSync(path);
      same = open.dev === named.dev && open.ino === named.ino;
    } catch {
      // Either side is gone: the path does not name this file any more.
    }
    let closed = false;
    try {
      fs.closeSync(fd);
      closed = true;
    } catch {
      // Reported below as an unavailable spill.
    }
    if (same && closed) this.state = 'complete';
    else if (same) removeQuietly(path);
  }

  /** Releases the descriptor when the capture is freed; the file itself stays as the stream's record. */
  close(): void {
    if (this.fd < 0) return;
    try {
      fs.closeSync(this.fd);
    } catch {
      // Nothing is left to report to once the capture is gone.
    }
    this.fd = -1;
  }

  private start(totalAfter: number, before: Uint8Array, data: Uint8Array): void {
    // The file could never hold the whole stream, so it is not worth creating.
    if (this.dir === undefined || totalAfter > this.spillCap) {
      this.state = 'unavailable';
      return;
    }
    const path = this.dir.endsWith('/') ? this.dir + this.fileName : `${this.dir}/${this.fileName}`;
    try {
      this.fd = openMakingDir(this.dir, path);
    } catch {
      // The path may belong to someone else (EEXIST): it is not ours to remove.
      this.state = 'unavailable';
      return;
    }
    this.path = path;
    this.state = 'active';
    if (!this.append(before) || !this.append(data)) this.fail();
  }

  private append(bytes: Uint8Array): boolean {
    try {
      let offset = 0;
      while (offset < bytes.length) {
        const written = fs.writeSync(this.fd, bytes, offset, bytes.length - offset);
        // A regular file that accepts nothing is out of space; looping would spin forever.
        if (written <= 0) return false;
        offset += written;
      }
      return true;
    } catch {
      return false;
    }
  }

  /** Gives up on the file: a partial spill is never advertised, and the bytes are not left behind. */
  private fail(): void {
    this.state = 'unavailable';
    if (this.fd >= 0) {
      try {
        fs.closeSync(this.fd);
      } catch {
        // Already unavailable; the descriptor is gone either way.
      }
      this.fd = -1;
    }
    if (this.path !== undefined) removeQuietly(this.path);
  }
}

function removeQuietly(path: string): void {
  try {
    fs.unlinkSync(path);
  } catch {
    // The directory may itself be gone; there is nothing more to remove.
  }
}

/** Opens a new spill file; a directory removed underneath is made again (0700), inside a parent that still exists. */
function openMakingDir(dir: string, path: string): number {
  try {
    return fs.openSync(path, CREATE_FLAGS, CREATE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    try {
      makeDir(dir);
    } catch (missing) {
      // The runtime's root above the directory is gone too: made again, but never more than those two levels.
      if ((missing as NodeJS.ErrnoException).code !== 'ENOENT') throw missing;
      makeDir(dirname(dir));
      makeDir(dir);
    }
    return fs.openSync(path, CREATE_FLAGS, CREATE_MODE);
  }
}

/** One private directory; one that exists already is fine. */
function makeDir(dir: string): void {
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (made) {
    if ((made as NodeJS.ErrnoException).code !== 'EEXIST') throw made;
  }
}
