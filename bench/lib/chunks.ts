// Source chunks for the suites: allocated once up front, so feeding a capture allocates nothing on the JS side.

/** A chunk of printable ASCII (no UTF-8 sequence is ever held back), shifted by `seed` so chunks differ. */
export function asciiChunk(size: number, seed = 0): Buffer {
  const chunk = Buffer.allocUnsafe(size);
  for (let i = 0; i < size; i++) chunk[i] = 0x20 + ((i + seed * 7) % 95);
  return chunk;
}
