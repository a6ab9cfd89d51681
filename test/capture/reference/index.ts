// The reference capture backend: a pure-TypeScript model of the native core's semantics (crates/core/README.md).
// It is an oracle for the conformance and differential tests and a baseline for the benchmarks; the executor never
// runs on it (its supervisors write into the native registry), so it lives with the tests, outside the package.
import type { CaptureBackend, RingRead, RingReadInto } from '../../../src/capture/types.js';
import { chunkKind, count, stream } from './args.js';
import type { Capture } from './capture.js';
import { noRing, unknownCapture } from './errors.js';
import type { Ring, RingSlice } from './ring.js';
import { createCapture, freeCapture, getCapture } from './registry.js';

/**
 * Arguments are checked in the binding's order: an id that no capture could have comes first, then the other
 * arguments, and only then whether the capture exists.
 */
function checkId(id: number): number {
  if (!(id >= 1 && Number.isSafeInteger(id))) throw unknownCapture(id);
  return id;
}

function ringOf(id: number): Ring {
  const capture: Capture = getCapture(id);
  if (capture.ring === undefined) throw noRing(id);
  return capture.ring;
}

/** Copies a read out of the ring: the segments returned must not alias the ring's own chunks. */
function toRead(slice: RingSlice): RingRead {
  const { from, to, lossy, total, earliest, settled } = slice;
  return {
    segments: slice.segments.map(({ kind, gap, data }) => ({ kind, gap, data: Buffer.from(data) })),
    from,
    to,
    lossy,
    total,
    earliest,
    settled,
  };
}

export const referenceBackend: CaptureBackend = {
  kind: 'reference',
  create: (options) => createCapture(options),
  write(id, streamId, data) {
    checkId(id);
    const index = stream(streamId);
    getCapture(id).write(index, data);
  },
  finish: (id) => getCapture(checkId(id)).finish(),
  info(id, streamId) {
    checkId(id);
    const index = stream(streamId);
    return getCapture(id).info(index);
  },
  tail(id, streamId) {
    checkId(id);
    const index = stream(streamId);
    return getCapture(id).tail(index);
  },
  tailText(id, streamId) {
    return referenceBackend.tail(id, streamId).toString('utf8');
  },
  observe(id, streamId, from, max) {
    checkId(id);
    const index = stream(streamId);
    const start = count('from', from);
    const limit = count('max', max);
    return getCapture(id).observe(index, start, limit);
  },
  ringAppend(id, kind, data, gap) {
    checkId(id);
    const checked = chunkKind(kind);
    ringOf(id).append(checked, data, gap);
  },
  ringRead(id, max) {
    checkId(id);
    const limit = count('max', max);
    return toRead(ringOf(id).read(limit));
  },
  ringReadInto(id, buffer): RingReadInto {
    // Chunks are replaced, never changed in place, so the views stay valid after the read's own eviction.
    const { segments, bytes, from, to, lossy, total, earliest, settled } = ringOf(checkId(id)).readInto(
      buffer.length,
    );
    let at = 0;
    for (const segment of segments) {
      buffer.set(segment.data, at);
      at += segment.data.length;
    }
    return {
      bytes,
      segments: segments.map(({ kind, gap, data }) => ({ kind, gap, length: data.length })),
      from,
      to,
      lossy,
      total,
      earliest,
      settled,
    };
  },
  ringObserve(id, from, max) {
    checkId(id);
    const start = count('from', from);
    const limit = count('max', max);
    return toRead(ringOf(id).slice(start, limit));
  },
  ringSettle: (id) => ringOf(checkId(id)).settle(),
  ringState: (id) => ringOf(checkId(id)).state(),
  free: (id) => freeCapture(checkId(id)),
};
