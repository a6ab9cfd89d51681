// The native capture backend: the napi-rs addon behind the CaptureBackend interface, loaded on first use.
import {
  ChunkCode,
  READ_HEADER,
  ObserveTable,
  ReadTable,
  SEGMENT_WIDTH,
  StateTable,
  type NativeBinding,
  type NativeCaptureOptions,
} from '../native/binding.js';
import { loadBinding } from '../native/loader.js';
import type {
  CaptureBackend,
  CaptureOptions,
  ChunkKind,
  RingRead,
  RingReadInto,
  RingReadMeta,
  RingSegment,
  SpillState,
  StreamInfo,
} from './types.js';

let addon: NativeBinding | undefined;

// Importing this module must never load the addon: the first call does.
function native(): NativeBinding {
  return (addon ??= loadBinding());
}

/** Segments the shared table holds; a read with more retries once with a table made for it. */
const TABLE_SEGMENTS = 64;
/** A table grown for a large read replaces the shared one only up to this many segments (about 100 KiB). */
const KEEP_SEGMENTS = 4096;

/**
 * The one table every call fills (see `ReadTable`): the binding writes numbers into it and the result objects
 * are built here, which V8 does far faster than N-API. Calls are synchronous, so one table per thread suffices.
 */
let table: Float64Array = new Float64Array(READ_HEADER + SEGMENT_WIDTH * TABLE_SEGMENTS);

/** A table long enough for the segment count the binding just reported. */
function grown(short: Float64Array): Float64Array {
  const segments = short[ReadTable.segments]!;
  const longer = new Float64Array(READ_HEADER + SEGMENT_WIDTH * segments);
  if (segments <= KEEP_SEGMENTS) table = longer;
  return longer;
}

const KINDS: readonly ChunkKind[] = ['stdout', 'stderr', 'log'];

/** The kind as the binding's number; an unknown name goes through as it is, so the binding names it in its error. */
function kindCode(kind: ChunkKind): number | string {
  switch (kind) {
    case 'stdout':
      return ChunkCode.stdout;
    case 'stderr':
      return ChunkCode.stderr;
    case 'log':
      return ChunkCode.log;
    default:
      return kind as string;
  }
}

function toNativeOptions(options: CaptureOptions | undefined): NativeCaptureOptions | undefined {
  if (options === undefined) return undefined;
  const { stdoutCap, stderrCap, spillDir, spillName, spillCap, ring } = options;
  const out: NativeCaptureOptions = {};
  if (stdoutCap !== undefined) out.stdoutCap = stdoutCap;
  if (stderrCap !== undefined) out.stderrCap = stderrCap;
  if (spillDir !== undefined) out.spillDir = spillDir;
  if (spillName !== undefined) out.spillName = spillName;
  if (spillCap !== undefined) out.spillCap = spillCap;
  if (ring !== undefined) {
    out.ring =
      typeof ring === 'boolean'
        ? ring
        : {
            ...(ring.liveLimit !== undefined && { liveLimit: ring.liveLimit }),
            ...(ring.settledLimit !== undefined && { settledLimit: ring.settledLimit }),
          };
  }
  return out;
}

function writeMeta(t: Float64Array, meta: RingReadMeta): void {
  meta.from = t[ReadTable.from]!;
  meta.to = t[ReadTable.to]!;
  meta.lossy = t[ReadTable.lossy] === 1;
  meta.total = t[ReadTable.total]!;
  meta.earliest = t[ReadTable.earliest]!;
  meta.settled = t[ReadTable.settled] === 1;
}

/**
 * The segments of a read table; one Buffer holds all their bytes, so each segment is a view of it (the whole
 * Buffer itself when there is one segment, the common case).
 */
function segmentsOf(t: Float64Array, data: Buffer): RingSegment[] {
  const count = t[ReadTable.segments]!;
  const segments = new Array<RingSegment>(count);
  let offset = 0;
  for (let i = 0, at = READ_HEADER; i < count; i++, at += SEGMENT_WIDTH) {
    const length = t[at + 2]!;
    segments[i] = {
      kind: KINDS[t[at]!]!,
      gap: t[at + 1] === 1,
      data: count === 1 ? data : data.subarray(offset, offset + length),
    };
    offset += length;
  }
  return segments;
}

function metaOf(t: Float64Array): RingReadMeta {
  const meta = {} as RingReadMeta;
  writeMeta(t, meta);
  return meta;
}

function toRingRead(t: Float64Array, data: Buffer): RingRead {
  return { segments: segmentsOf(t, data), ...metaOf(t) };
}

/** A consumer read into `buffer`; returns the table the binding filled. */
function readInto(id: number, buffer: Uint8Array): Float64Array {
  let t = table;
  while (!native().ringReadInto(id, buffer, t)) t = grown(t);
  return t;
}

/**
 * A consumer read into `buffer` (its length bounds the read, as for `ringReadInto`) that builds no segment
 * objects: it returns the byte count (the bytes are `buffer.subarray(0, n)`) and, when `meta` is given, writes
 * the read's metadata into it. For readers that do not need the split by chunk kind; use `ringReadBytes` from
 * the capture module to stay backend-neutral.
 */
export function nativeRingReadBytes(id: number, buffer: Uint8Array, meta?: RingReadMeta): number {
  const t = readInto(id, buffer);
  if (meta !== undefined) writeMeta(t, meta);
  return t[ReadTable.bytes]!;
}

export const nativeBackend: CaptureBackend = {
  kind: 'native',
  create: (options) => native().create(toNativeOptions(options)),
  write: (id, stream, data) => native().write(id, stream, data),
  finish: (id) => native().finish(id),
  info(id, stream): StreamInfo {
    const { total, retained, truncated, spill, spillPath } = native().info(id, stream);
    const info: StreamInfo = { total, retained, truncated, spill: spill as SpillState };
    if (spillPath !== undefined) info.spillPath = spillPath;
    return info;
  },
  tail: (id, stream) => native().tail(id, stream),
  tailText: (id, stream) => native().tailText(id, stream),
  observe(id, stream, from, max) {
    const t = table;
    const data = native().observe(id, stream, from, max, t);
    return { data, from: t[ObserveTable.from]!, next: t[ObserveTable.next]!, lossy: t[ObserveTable.lossy] === 1 };
  },
  ringAppend: (id, kind, data, gap) => native().ringAppend(id, kindCode(kind), data, gap),
  ringRead(id, max) {
    let t = table;
    let data: Buffer | null;
    while ((data = native().ringRead(id, max, t)) === null) t = grown(t);
    return toRingRead(t, data);
  },
  ringReadInto(id, buffer): RingReadInto {
    const t = readInto(id, buffer);
    const count = t[ReadTable.segments]!;
    const segments = new Array<RingReadInto['segments'][number]>(count);
    for (let i = 0, at = READ_HEADER; i < count; i++, at += SEGMENT_WIDTH) {
      segments[i] = { kind: KINDS[t[at]!]!, gap: t[at + 1] === 1, length: t[at + 2]! };
    }
    return { bytes: t[ReadTable.bytes]!, segments, ...metaOf(t) };
  },
  ringObserve(id, from, max) {
    let t = table;
    let data: Buffer | null;
    while ((data = native().ringObserve(id, from, max, t)) === null) t = grown(t);
    return toRingRead(t, data);
  },
  ringSettle: (id) => native().ringSettle(id),
  ringState(id) {
    const t = table;
    native().ringState(id, t);
    return {
      total: t[StateTable.total]!,
      earliest: t[StateTable.earliest]!,
      consumer: t[StateTable.consumer]!,
      settled: t[StateTable.settled] === 1,
      terminalRead: t[StateTable.terminalRead] === 1,
      retained: t[StateTable.retained]!,
    };
  },
  free: (id) => native().free(id),
};
