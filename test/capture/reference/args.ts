// Argument checks at the backend boundary, with the messages and codes the native binding uses for the same input.
import type { ChunkKind, StreamId } from '../../../src/capture/types.js';
import { debugString, invalidArgument, rustNumber } from './errors.js';

/** A count, size or offset: a non-negative integer, or Infinity for "no limit". */
export function count(name: string, value: number): number {
  if (value === Infinity) return value;
  if (!(value >= 0) || !Number.isInteger(value)) {
    throw invalidArgument(`invalid ${name}: expected a non-negative integer, got ${rustNumber(value)}`);
  }
  return value;
}

/** A stream number converted the way N-API converts to u32 (modulo 2^32, NaN and infinities to 0). */
export function stream(value: number): StreamId {
  const index = value >>> 0;
  if (index > 1) throw invalidArgument(`invalid stream: expected 0 (stdout) or 1 (stderr), got ${index}`);
  return index as StreamId;
}

export function chunkKind(value: string): ChunkKind {
  if (value === 'stdout' || value === 'stderr' || value === 'log') return value;
  throw invalidArgument(`invalid chunk kind: expected "stdout", "stderr" or "log", got ${debugString(value)}`);
}
