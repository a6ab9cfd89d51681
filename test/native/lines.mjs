// Deterministic output shared by the worker threads that write it and the tests that check it byte for byte.

/** A stdout line rich in multi-byte characters, so split writes cut inside sequences. */
export function outLine(worker, i) {
  return `w${worker} out ${i} é€😀 ${'x'.repeat(i % 17)}\n`;
}

export function errLine(worker, i) {
  return `w${worker} err ${i} ß中🦀\n`;
}

/** Lines written whole by every worker into one capture, so they interleave but never tear. */
export function sharedLine(worker, i) {
  return `w${worker} shared ${i}\n`;
}
