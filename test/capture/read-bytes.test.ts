// ringReadBytes: a consumer read into a buffer that returns the byte count and the metadata, on both backends.
import { describe, expect, it } from 'vitest';
import { nativeBackend } from '../../src/capture/native.js';
import { ringReadBytes } from '../../src/capture/read-bytes.js';
import { referenceBackend } from './reference/index.js';
import type { CaptureBackend, RingReadMeta } from '../../src/capture/types.js';

/** The same reads through ringReadInto on one capture and ringReadBytes on another, fed alike. */
function compare(backend: CaptureBackend): void {
  const [viaInto, viaBytes] = [0, 1].map(() => backend.create({ ring: { liveLimit: 12 } }));
  const feed = (text: Buffer, kind: 'stdout' | 'stderr' | 'log') => {
    for (const id of [viaInto!, viaBytes!]) backend.ringAppend(id, kind, text, false);
  };
  const euro = Buffer.from('€');
  feed(Buffer.from('ab'), 'stdout');
  feed(Buffer.from('[x]'), 'log');
  feed(Buffer.concat([Buffer.from('c'), euro.subarray(0, 1)]), 'stderr');
  feed(euro.subarray(1), 'stderr');
  feed(Buffer.from('0123456789'), 'stdout');
  for (const size of [4, 1, 3, 64, 64]) {
    const a = Buffer.alloc(size, 0xee);
    const b = Buffer.alloc(size, 0xee);
    const read = backend.ringReadInto(viaInto!, a);
    const meta = {} as RingReadMeta;
    const bytes = ringReadBytes(backend, viaBytes!, b, meta);
    expect(bytes).toBe(read.bytes);
    expect(b).toEqual(a);
    const { from, to, lossy, total, earliest, settled } = read;
    expect(meta).toEqual({ from, to, lossy, total, earliest, settled });
    expect(ringReadBytes(backend, viaBytes!, Buffer.alloc(0))).toBe(0);
    backend.ringReadInto(viaInto!, Buffer.alloc(0));
  }
  backend.free(viaInto!);
  backend.free(viaBytes!);
}

describe('ringReadBytes', () => {
  it('matches ringReadInto on the native backend', () => compare(nativeBackend));
  it('matches ringReadInto on the reference backend', () => compare(referenceBackend));

  it('throws what ringReadInto throws', () => {
    for (const backend of [nativeBackend, referenceBackend]) {
      const id = backend.create({ ring: true });
      backend.ringAppend(id, 'stdout', Buffer.from('😀'), false);
      expect(() => ringReadBytes(backend, id, Buffer.alloc(2))).toThrow(
        expect.objectContaining({ code: 'SHELLRING_BUFFER_TOO_SMALL' }),
      );
      expect(ringReadBytes(backend, id, Buffer.alloc(4))).toBe(4);
      backend.free(id);
    }
  });
});
