// Buffers the binding returns live in memory V8 owns, and the external strings it returns are counted as V8's own
// external memory, so a reader that never yields to the event loop stays flat.
import { expect, it } from 'vitest';
import { nativeBackend as backend } from '../../src/capture/native.js';

const MiB = 1024 * 1024;
const CHUNK = 64 * 1024;
/** 512 MiB each through ringRead and tailText, plus 128 MiB each through tail and observe. */
const ROUNDS = 8192;
const LIMIT = 192 * MiB;

it('ringRead, tail, tailText and observe allocate nothing that waits for an event-loop turn to be freed', () => {
  const id = backend.create({ stdoutCap: 64_000, ring: true });
  const chunk = Buffer.alloc(CHUNK, 'a');
  const before = process.memoryUsage.rss();
  let growth = 0;
  let seen = 0;
  for (let i = 0; i < ROUNDS; i++) {
    backend.write(id, 0, chunk);
    seen += backend.tailText(id, 0).length;
    for (const segment of backend.ringRead(id, CHUNK).segments) seen += segment.data.length;
    if (i % 4 === 0) {
      seen += backend.tail(id, 0).length;
      seen += backend.observe(id, 0, 0, Infinity).data.length;
    }
    if (i % 256 === 0) growth = Math.max(growth, process.memoryUsage.rss() - before);
  }
  growth = Math.max(growth, process.memoryUsage.rss() - before);
  backend.free(id);
  expect(seen).toBe(ROUNDS * CHUNK + ROUNDS * 64_000 + (ROUNDS / 4) * 2 * 64_000);
  // Buffers freed only by finalizers from the event loop would hold all 1.2 GiB here, and external strings V8 does
  // not count would wait for a collection that nothing else brings.
  expect(growth).toBeLessThan(LIMIT);
});
