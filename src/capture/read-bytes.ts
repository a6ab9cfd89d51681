// A consumer ring read that returns only a byte count: the hot path for readers that do not need segments.
import { nativeBackend, nativeRingReadBytes } from './native.js';
import type { CaptureBackend, RingReadMeta } from './types.js';

/**
 * `backend.ringReadInto(id, buffer)` without the segment list: returns how many bytes were read into the start
 * of `buffer` and, when `meta` is given, writes the read's metadata into it. The native backend then builds no
 * object at all; any other backend goes through `ringReadInto`.
 *
 * @throws what `ringReadInto` throws (`SHELLRING_BUFFER_TOO_SMALL` when not even the next character fits).
 */
export function ringReadBytes(backend: CaptureBackend, id: number, buffer: Buffer, meta?: RingReadMeta): number {
  if (backend === nativeBackend) return nativeRingReadBytes(id, buffer, meta);
  const read = backend.ringReadInto(id, buffer);
  if (meta !== undefined) {
    meta.from = read.from;
    meta.to = read.to;
    meta.lossy = read.lossy;
    meta.total = read.total;
    meta.earliest = read.earliest;
    meta.settled = read.settled;
  }
  return read.bytes;
}
