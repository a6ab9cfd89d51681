// UTF-8 boundary rules shared by the tail and the ring (crates/core/README.md, "UTF-8 rules").

/** True for `10xxxxxx`, a byte that can never start a character. */
export function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/** Length of the sequence a lead byte announces; stray continuation bytes and `11111xxx` count as lone bytes. */
export function sequenceLength(byte: number): number {
  if (byte < 0x80) return 1;
  if ((byte & 0xe0) === 0xc0) return 2;
  if ((byte & 0xf0) === 0xe0) return 3;
  if ((byte & 0xf8) === 0xf0) return 4;
  return 1;
}

/**
 * Index where the incomplete tail of `s[0..n)` begins (`n` when there is none). Only the last three bytes can
 * belong to an unfinished sequence, so the scan never looks further back.
 */
export function incompleteTailStart(s: Uint8Array, n: number = s.length): number {
  const stop = Math.max(0, n - 3);
  for (let i = n - 1; i >= stop; i--) {
    const byte = s[i]!;
    if (isContinuation(byte)) continue;
    const length = sequenceLength(byte);
    return length > 1 && n - i < length ? i : n;
  }
  return n;
}

/**
 * Length of the boundary cut of `s[0..n)` at `max` (requires `0 < max`; `n` when `max >= n`). Backs off to the
 * start of the character at `max`; when not even one character fits it moves forward instead, so a read always
 * makes progress. The result may therefore exceed `max` by up to three bytes.
 */
export function boundaryCut(s: Uint8Array, max: number, n: number = s.length): number {
  if (max >= n) return n;
  let c = max;
  let steps = 0;
  while (c > 0 && isContinuation(s[c]!) && steps < 3) {
    c--;
    steps++;
  }
  if (c > 0) return c;
  c = max;
  steps = 0;
  while (c < n && isContinuation(s[c]!) && steps < 3) {
    c++;
    steps++;
  }
  return c;
}

/** Number of leading continuation bytes (at most three) a window that began by dropping bytes must skip. */
export function startSkip(s: Uint8Array, start = 0, end: number = s.length): number {
  let skip = 0;
  while (skip < 3 && start + skip < end && isContinuation(s[start + skip]!)) skip++;
  return skip;
}
