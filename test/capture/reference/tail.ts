// The per-stream tail: the last `cap` bytes of a stream in a circular buffer, plus the total ever written.
import type { ObserveResult } from '../../../src/capture/types.js';
import { boundaryCut, incompleteTailStart, startSkip } from './utf8.js';

/** How far into a dropped-into window a line boundary is looked for. */
export const LINE_PROBE = 4096;

/** Smallest backing store allocated once a stream writes anything; most commands print less than this. */
const INITIAL_STORE = 256;

export class Tail {
  readonly cap: number;
  /** Every byte ever written. */
  total = 0;
  /**
   * Byte at absolute offset `o` (when retained) lives at `store[o % cap]`. Until the stream first outgrows the
   * store it is still filling linearly from 0, which is the same layout, so growing is a plain prefix copy; once
   * the store reaches `cap` it never moves again.
   */
  private store: Buffer = Buffer.alloc(0);

  constructor(cap: number) {
    this.cap = cap;
  }

  write(data: Uint8Array): void {
    const n = data.length;
    if (n === 0) return;
    const cap = this.cap;
    if (cap === 0) {
      this.total += n;
      return;
    }
    const after = this.total + n;
    if (after > this.store.length && this.store.length < cap) this.grow(Math.min(cap, after));
    if (n >= cap) {
      // Only the chunk's last `cap` bytes can survive, so nothing before them is copied.
      this.place(after - cap, data.subarray(n - cap));
    } else {
      this.place(this.total, data);
    }
    this.total = after;
  }

  /** True once the stream holds more than the tail can keep. */
  dropped(): boolean {
    return this.total > this.cap;
  }

  /** Absolute offset of the first byte of `window()`. */
  windowStart(): number {
    const rawStart = this.rawStart();
    return rawStart + this.skipAt(rawStart);
  }

  /** The retained window: the last `min(total, cap)` bytes, without a character split by the drop. */
  window(): Buffer {
    return this.copy(this.windowStart(), this.total);
  }

  /**
   * While nothing has been dropped the store holds the whole stream from offset 0 linearly; the spill file is
   * back-filled from this view at the first overflow.
   */
  wholeStream(): Buffer {
    if (this.dropped()) throw new Error('the tail no longer holds the whole stream');
    return this.store.subarray(0, this.total);
  }

  /** An observer read by absolute offset; never changes state. */
  observe(from: number, max: number, finished: boolean): ObserveResult {
    const windowStart = this.windowStart();
    const start = Math.min(Math.max(from, windowStart), this.total);
    const lossy = from < windowStart;
    let end = this.total;
    if (!finished) {
      const last = this.copy(Math.max(start, end - 3), end);
      end -= last.length - incompleteTailStart(last);
    }
    let data: Buffer;
    if (end - start > max) {
      // The cut looks at most three bytes past `max`, so copying `max + 4` bytes is enough to decide it.
      const head = this.copy(start, Math.min(end, start + max + 4));
      data = head.subarray(0, boundaryCut(head, max));
    } else {
      data = this.copy(start, end);
    }
    return { data, from: start, next: start + data.length, lossy };
  }

  private rawStart(): number {
    return this.total - Math.min(this.total, this.cap);
  }

  /** Bytes to skip at `rawStart`, only when bytes were dropped before it: past the first newline among the first
   * LINE_PROBE bytes when something follows it, else leading continuation bytes (crates/core/src/line_start.rs). */
  private skipAt(rawStart: number): number {
    if (!this.dropped()) return 0;
    const length = this.total - rawStart;
    const probe = this.copy(rawStart, Math.min(this.total, rawStart + LINE_PROBE));
    const newline = probe.indexOf(0x0a);
    if (newline >= 0 && newline + 1 < length) return newline + 1;
    return startSkip(probe.subarray(0, 3));
  }

  private grow(minimum: number): void {
    const size = Math.min(this.cap, Math.max(minimum, INITIAL_STORE, this.store.length * 2));
    const next = Buffer.allocUnsafe(size);
    this.store.copy(next, 0, 0, this.total);
    this.store = next;
  }

  /** Writes `bytes` so that `bytes[0]` lands at absolute offset `at` (wrapping around the store). */
  private place(at: number, bytes: Uint8Array): void {
    const size = this.store.length;
    const pos = size === this.cap ? at % size : at;
    const first = Math.min(bytes.length, size - pos);
    this.store.set(first === bytes.length ? bytes : bytes.subarray(0, first), pos);
    if (first < bytes.length) this.store.set(bytes.subarray(first), 0);
  }

  /** A fresh copy of the retained absolute range `[from, to)`. */
  private copy(from: number, to: number): Buffer {
    const length = to - from;
    const out = Buffer.allocUnsafe(length);
    if (length === 0) return out;
    const size = this.store.length;
    const pos = size === this.cap ? from % size : from;
    const first = Math.min(length, size - pos);
    this.store.copy(out, 0, pos, pos + first);
    if (first < length) this.store.copy(out, first, 0, length - first);
    return out;
  }
}
