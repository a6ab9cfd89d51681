// The read-table protocol of the raw binding: numbers in a caller's Float64Array, retries when it is too short.
import { describe, expect, it } from 'vitest';
import { referenceBackend } from '../capture/reference/index.js';
import { nativeBackend } from '../../src/capture/native.js';
import type { CaptureBackend } from '../../src/capture/types.js';
import { READ_HEADER, ReadTable, SEGMENT_WIDTH } from '../../src/native/binding.js';
import { loadBinding } from '../../src/native/loader.js';

const binding = loadBinding();

function thrown(call: () => unknown): { code?: unknown; message: string } {
  try {
    call();
  } catch (error) {
    return error as { code?: unknown; message: string };
  }
  throw new Error('expected the call to throw');
}

/** A ring holding `count` one-chunk segments of alternating kinds: `count` segments in one read. */
function manySegments(backend: CaptureBackend, count: number): number {
  const id = backend.create({ ring: { liveLimit: 1 << 20 } });
  for (let i = 0; i < count; i++) {
    backend.ringAppend(id, i % 3 === 0 ? 'stdout' : i % 3 === 1 ? 'stderr' : 'log', Buffer.from(`<${i}>`), i % 7 === 0);
  }
  return id;
}

describe('read tables', () => {
  it('fills the header and one kind, gap, length triple per segment', () => {
    const id = binding.create({ ring: true });
    binding.ringAppend(id, 0, Buffer.from('out'), false);
    binding.ringAppend(id, 2, Buffer.from('[log]'), true);
    binding.ringAppend(id, 'stderr', Buffer.from('err'), false);
    const table = new Float64Array(READ_HEADER + 3 * SEGMENT_WIDTH);
    const buffer = Buffer.alloc(32);
    expect(binding.ringReadInto(id, buffer, table)).toBe(true);
    expect(Array.from(table)).toEqual([11, 0, 11, 0, 11, 0, 0, 3, 0, 0, 3, 2, 1, 5, 1, 0, 3]);
    expect(buffer.subarray(0, table[ReadTable.bytes]).toString()).toBe('out[log]err');
    binding.free(id);
  });

  it('reads nothing and reports the segment count when the table is too short', () => {
    const id = binding.create({ ring: true });
    for (const text of ['a', 'b', 'c']) binding.ringAppend(id, 0, Buffer.from(text), true);
    const short = new Float64Array(READ_HEADER + 2 * SEGMENT_WIDTH);
    expect(binding.ringReadInto(id, Buffer.alloc(8), short)).toBe(false);
    expect(short[ReadTable.segments]).toBe(3);
    expect(binding.ringRead(id, 8, short)).toBeNull();
    expect(binding.ringObserve(id, 0, 8, short)).toBeNull();
    const state = new Float64Array(6);
    binding.ringState(id, state);
    expect(state[2]).toBe(0);
    const table = new Float64Array(READ_HEADER + 3 * SEGMENT_WIDTH);
    expect(binding.ringRead(id, 8, table)?.toString()).toBe('abc');
    binding.ringState(id, state);
    expect(state[2]).toBe(3);
    binding.free(id);
  });

  it('rejects a table shorter than its header and kinds that are not 0, 1 or 2', () => {
    const id = binding.create({ ring: true });
    const error = thrown(() => binding.ringReadInto(id, Buffer.alloc(4), new Float64Array(READ_HEADER - 1)));
    expect([error.code, error.message]).toEqual([
      'SHELLRING_INVALID_ARGUMENT',
      `invalid table: expected a Float64Array of at least ${READ_HEADER} numbers, got ${READ_HEADER - 1}`,
    ]);
    expect(thrown(() => binding.ringState(id, new Float64Array(5))).code).toBe('SHELLRING_INVALID_ARGUMENT');
    expect(thrown(() => binding.observe(id, 0, 0, 1, new Float64Array(2))).code).toBe('SHELLRING_INVALID_ARGUMENT');
    expect(thrown(() => binding.ringRead(id, 1, new Float32Array(8) as never)).code).toBe('InvalidArg');
    const kind = thrown(() => binding.ringAppend(id, 3, Buffer.from('x'), false));
    expect([kind.code, kind.message]).toEqual([
      'SHELLRING_INVALID_ARGUMENT',
      'invalid chunk kind: expected 0 (stdout), 1 (stderr) or 2 (log), got 3',
    ]);
    binding.free(id);
  });

  it('checks the id first and reports a missing capture with its code on the fast calls', () => {
    const table = new Float64Array(READ_HEADER);
    for (const call of [
      () => binding.write(0, 0, Buffer.from('x')),
      () => binding.ringAppend(-1, 0, Buffer.from('x'), false),
      () => binding.ringReadInto(1.5, Buffer.alloc(1), table),
    ]) {
      expect(thrown(call).code).toBe('SHELLRING_UNKNOWN_CAPTURE');
    }
    const error = thrown(() => binding.ringReadInto(1e9, Buffer.alloc(1), table));
    expect([error.code, error.message]).toEqual(['SHELLRING_UNKNOWN_CAPTURE', 'unknown capture 1000000000']);
    const id = binding.create({});
    const stream = thrown(() => binding.write(id, 2, Buffer.from('x')));
    expect([stream.code, stream.message]).toEqual([
      'SHELLRING_INVALID_ARGUMENT',
      'invalid stream: expected 0 (stdout) or 1 (stderr), got 2',
    ]);
    expect(thrown(() => binding.write(id, 0, 'text' as never)).message).toBe(
      'invalid data: expected a Buffer or Uint8Array',
    );
    expect(thrown(() => binding.ringAppend(id, 0, Buffer.from('x'), false)).code).toBe('SHELLRING_NO_RING');
    binding.free(id);
  });

  // 5000 segments also pass the size past which the backend stops keeping a grown table.
  it.each([63, 64, 65, 500, 5000])('the backend retries with a longer table: %i segments agree with the reference backend', (count) => {
    const ids = [nativeBackend, referenceBackend].map((backend) => manySegments(backend, count));
    const [native, reference] = [nativeBackend, referenceBackend].map((backend, i) => {
      const id = ids[i]!;
      const observed = backend.ringObserve(id, 0, 1 << 20);
      const buffer = Buffer.alloc(1 << 16);
      const into = backend.ringReadInto(id, buffer);
      const bytes = buffer.subarray(0, into.bytes).toString();
      backend.ringAppend(id, 'log', Buffer.from('!'), false);
      const read = backend.ringRead(id, 1 << 20);
      backend.free(id);
      return { observed, into, bytes, read };
    });
    expect(native!.observed.segments).toHaveLength(count);
    expect(native!.into.segments).toHaveLength(count);
    expect(native).toEqual(reference);
  });
});
