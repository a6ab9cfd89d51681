// The job ring: a bounded log of chunks at absolute offsets, read by one consumer cursor and any observers.
import type { ChunkKind, RingReadMeta, RingState } from '../../../src/capture/types.js';
import { bufferTooSmall } from './errors.js';
import { boundaryCut, incompleteTailStart, isContinuation, startSkip } from './utf8.js';

export const DEFAULT_LIVE_LIMIT = 262144;
export const DEFAULT_SETTLED_LIMIT = 16384;

interface Chunk {
  offset: number;
  kind: ChunkKind;
  gap: boolean;
  data: Buffer;
}

/**
 * A read's pieces as views into the ring's chunks, before they are copied out, with the ring's counters as the
 * read saw them (a terminal read evicts only after it has been taken).
 */
export interface RingSlice extends RingReadMeta {
  segments: { kind: ChunkKind; gap: boolean; data: Buffer }[];
  bytes: number;
}

const EMPTY = Buffer.alloc(0);

/** Byte `i` of the virtual concatenation `a ++ b`. */
function byteAt(a: Uint8Array, b: Uint8Array, i: number): number {
  return i < a.length ? a[i]! : b[i - a.length]!;
}

/** A fresh buffer holding `(a ++ b)[from..]`: the one copy a stored chunk costs. */
function join(a: Uint8Array, b: Uint8Array, from: number): Buffer {
  const out = Buffer.allocUnsafe(a.length + b.length - from);
  if (from < a.length) {
    out.set(a.subarray(from), 0);
    out.set(b, a.length - from);
  } else {
    out.set(b.subarray(from - a.length), 0);
  }
  return out;
}

export class Ring {
  total = 0;
  consumer = 0;
  settled = false;
  terminalRead = false;
  retained = 0;
  /** Slots before `head` are evicted and cleared. */
  private readonly chunks: (Chunk | undefined)[] = [];
  /** Index of the head chunk: dropping from the front is a cursor move, compacted now and then. */
  private head = 0;
  private readonly carry: Record<'stdout' | 'stderr', Buffer> = { stdout: EMPTY, stderr: EMPTY };
  private readonly pendingGap: Record<ChunkKind, boolean> = { stdout: false, stderr: false, log: false };

  constructor(
    private readonly liveLimit: number,
    private readonly settledLimit: number,
  ) {}

  get limit(): number {
    return this.terminalRead ? this.settledLimit : this.liveLimit;
  }

  get earliest(): number {
    return this.head < this.chunks.length ? this.chunks[this.head]!.offset : this.total;
  }

  /**
   * Stores a chunk. The caller may reuse `data` afterwards, so the bytes kept are copied, once: a chunk that
   * alone passes the limit copies only the bytes that survive eviction.
   */
  append(kind: ChunkKind, data: Uint8Array, gap: boolean): void {
    if (kind === 'log') {
      this.store(kind, EMPTY, data, gap);
      return;
    }
    const carry = this.carry[kind];
    const n = carry.length + data.length;
    let keep: number;
    if (carry.length === 0) {
      keep = incompleteTailStart(data);
    } else {
      // The incomplete tail lies within the last three bytes, which may reach back into the carry.
      const last = new Uint8Array(Math.min(3, n));
      for (let i = 0; i < last.length; i++) last[i] = byteAt(carry, data, n - last.length + i);
      keep = n - last.length + incompleteTailStart(last);
    }
    let held = EMPTY;
    if (keep < n) {
      // At most three bytes, copied so the carry never pins the caller's buffer.
      held = Buffer.allocUnsafeSlow(n - keep);
      for (let i = keep; i < n; i++) held[i - keep] = byteAt(carry, data, i);
    }
    this.carry[kind] = held;
    if (keep <= carry.length) this.store(kind, carry.subarray(0, keep), EMPTY, gap);
    else this.store(kind, carry, data.subarray(0, keep - carry.length), gap);
  }

  /** Flushes the carries (stdout first) and marks the ring settled; appends stay accepted afterwards. */
  settle(): void {
    for (const kind of ['stdout', 'stderr'] as const) {
      const carry = this.carry[kind];
      if (carry.length === 0) continue;
      this.carry[kind] = EMPTY;
      this.store(kind, carry, EMPTY, false);
    }
    this.settled = true;
  }

  /** The consumer read: moves the cursor, and the read that reaches the end of a settled ring is terminal. */
  read(max: number): RingSlice {
    const slice = this.slice(this.consumer, max);
    this.consume(slice.to);
    return slice;
  }

  /**
   * A consumer read into a caller's buffer of `room` bytes: it never passes `room`.
   *
   * Throws the buffer-too-small error when not even the next character fits; the cursor stays, since returning
   * nothing would stall the reader forever.
   */
  readInto(room: number): RingSlice {
    const slice = this.slice(this.consumer, room, true);
    if (slice.bytes === 0 && slice.from < this.total && room > 0) {
      throw bufferTooSmall(this.needed(slice.from, room), room);
    }
    this.consume(slice.to);
    return slice;
  }

  private consume(to: number): void {
    this.consumer = to;
    if (this.settled && to === this.total) {
      this.terminalRead = true;
      this.evict();
    }
  }

  /**
   * An observer read: changes nothing. With `fit` the read never passes `max` (a caller's buffer cannot grow),
   * so a character that does not fit is left for the next read instead of being taken whole.
   */
  slice(requested: number, max: number, fit = false): RingSlice {
    const earliest = this.earliest;
    const lossy = requested < earliest;
    const from = Math.min(Math.max(requested, earliest), this.total);
    const segments: RingSlice['segments'] = [];
    let at = from;
    for (let i = this.find(from); i < this.chunks.length; i++) {
      const room = max - (at - from);
      if (room <= 0) break;
      const chunk = this.chunks[i]!;
      const skip = at - chunk.offset;
      const piece = skip === 0 ? chunk.data : chunk.data.subarray(skip);
      const gap = chunk.gap && skip === 0;
      if (piece.length <= room) {
        segments.push({ kind: chunk.kind, gap, data: piece });
        at += piece.length;
        continue;
      }
      const cut = boundaryCut(piece, room);
      if (!(fit && cut > room)) {
        segments.push({ kind: chunk.kind, gap, data: piece.subarray(0, cut) });
        at += cut;
      }
      break;
    }
    return {
      segments,
      bytes: at - from,
      from,
      to: at,
      lossy,
      total: this.total,
      earliest,
      settled: this.settled,
    };
  }

  /** Bytes the character at `from` needs when not even it fits in `room`. */
  private needed(from: number, room: number): number {
    const chunk = this.chunks[this.find(from)]!;
    return boundaryCut(chunk.data.subarray(from - chunk.offset), room);
  }

  state(): RingState {
    return {
      total: this.total,
      earliest: this.earliest,
      consumer: this.consumer,
      settled: this.settled,
      terminalRead: this.terminalRead,
      retained: this.retained,
    };
  }

  /** Stores `prefix ++ body` at offset `total` in chunks of at most a quarter of the limit (cut at character starts),
   * evicting after each: eviction drops whole chunks, and quarter chunks leave at least three quarters retained. */
  private store(kind: ChunkKind, prefix: Uint8Array, body: Uint8Array, gap: boolean): void {
    const withGap = gap || this.pendingGap[kind];
    const length = prefix.length + body.length;
    if (length === 0) {
      if (withGap) this.pendingGap[kind] = true;
      return;
    }
    this.pendingGap[kind] = false;
    const limit = this.limit;
    let [pre, rest] = [prefix, body];
    if (length > limit) {
      // Eviction would drop every older chunk and all but the last `limit` bytes (start-skipped).
      this.dropAll();
      const dropped = length - limit;
      let start = dropped;
      while (start < length && start - dropped < 3 && isContinuation(byteAt(prefix, body, start))) start++;
      this.total += start;
      [pre, rest] = start < prefix.length ? [prefix.subarray(start), body] : [EMPTY, body.subarray(start - prefix.length)];
    }
    const piece = Math.max(Math.floor(limit / 4), 4);
    for (let first = true; pre.length > 0 || rest.length > 0; first = false) {
      const cut = boundaryCut(rest, Math.max(piece - pre.length, 1));
      this.storeChunk({ offset: this.total, kind, gap: withGap && first, data: join(pre, rest.subarray(0, cut), 0) });
      [pre, rest] = [EMPTY, rest.subarray(cut)];
    }
  }

  /** Stores one chunk at offset `total`, then evicts. */
  private storeChunk(chunk: Chunk): void {
    this.total += chunk.data.length;
    this.push(chunk);
    this.evict();
  }

  private push(chunk: Chunk): void {
    this.chunks.push(chunk);
    this.retained += chunk.data.length;
  }

  private dropHead(): void {
    this.retained -= this.chunks[this.head]!.data.length;
    // Cleared at once so an evicted chunk's memory is free before the array is compacted.
    this.chunks[this.head] = undefined;
    this.head++;
  }

  private dropAll(): void {
    this.chunks.length = 0;
    this.head = 0;
    this.retained = 0;
  }

  private evict(): void {
    const limit = this.limit;
    while (this.retained > limit && this.chunks.length - this.head > 1) this.dropHead();
    if (this.retained > limit) {
      const only = this.chunks[this.head]!;
      const dropped = only.data.length - limit;
      const start = dropped + startSkip(only.data, dropped);
      // A fresh copy, not a view: the point of trimming is to give the memory back.
      only.data = Buffer.from(only.data.subarray(start));
      only.offset += start;
      this.retained -= start;
      if (only.data.length === 0) this.dropHead();
    }
    if (this.head === this.chunks.length) this.dropAll();
    else if (this.head > 1024 && this.head * 2 > this.chunks.length) {
      this.chunks.splice(0, this.head);
      this.head = 0;
    }
  }

  /** Index of the chunk holding absolute offset `at` (binary search: offsets are increasing). */
  private find(at: number): number {
    let lo = this.head;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const chunk = this.chunks[mid]!;
      if (chunk.offset + chunk.data.length <= at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
