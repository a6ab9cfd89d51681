// The native capture backend: the napi-rs addon behind the CaptureBackend interface, loaded on first use.
import type { NativeBinding, NativeCaptureOptions, NativeReadMeta, NativeRingRead } from '../native/binding.js';
import { loadBinding } from '../native/loader.js';
import type {
  CaptureBackend,
  CaptureOptions,
  ChunkKind,
  RingRead,
  RingReadMeta,
  SpillState,
  StreamInfo,
} from './types.js';

let addon: NativeBinding | undefined;

// Importing this module must never load the addon: the first call does.
function native(): NativeBinding {
  return (addon ??= loadBinding());
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

function meta(m: NativeReadMeta): RingReadMeta {
  return { from: m.from, to: m.to, lossy: m.lossy, total: m.total, earliest: m.earliest, settled: m.settled };
}

function toRingRead(read: NativeRingRead): RingRead {
  return {
    segments: read.segments.map(({ kind, gap, data }) => ({ kind: kind as ChunkKind, gap, data })),
    ...meta(read),
  };
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
  observe(id, stream, from, max) {
    const { data, from: start, next, lossy } = native().observe(id, stream, from, max);
    return { data, from: start, next, lossy };
  },
  ringAppend: (id, kind, data, gap) => native().ringAppend(id, kind, data, gap),
  ringRead: (id, max) => toRingRead(native().ringRead(id, max)),
  ringReadInto(id, buffer) {
    const read = native().ringReadInto(id, buffer);
    return {
      bytes: read.bytes,
      segments: read.segments.map(({ kind, gap, length }) => ({ kind: kind as ChunkKind, gap, length })),
      ...meta(read),
    };
  },
  ringObserve: (id, from, max) => toRingRead(native().ringObserve(id, from, max)),
  ringSettle: (id) => native().ringSettle(id),
  ringState(id) {
    const { total, earliest, consumer, settled, terminalRead, retained } = native().ringState(id);
    return { total, earliest, consumer, settled, terminalRead, retained };
  },
  free: (id) => native().free(id),
};
