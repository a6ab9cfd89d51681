// One memory measurement in a fresh process: RSS before, during and after one capture swallows 1 GiB.
// Run by the memory suite as `node --expose-gc memory-child.js <native|reference|naive> <spill|ring>`, so the
// heap left behind by other suites (or other cases) is not part of the figure.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CaptureOptions } from '../../src/capture/types.js';
import { loadBackend, type BackendName } from './backends.js';
import { asciiChunk } from './chunks.js';
import { NaiveTail } from './naive.js';
import { withTempDir } from './tempdir.js';
import { GiB, KiB, MiB } from './units.js';

export interface MemorySample {
  before: number;
  after: number;
  max: number;
}

const CHUNK = 64 * KiB;
const CAP = 64000;
/** RSS is read every this many chunks (1 MiB of input). */
const SAMPLE_EVERY = 16;

const [who, mode] = process.argv.slice(2) as [BackendName | 'naive', 'spill' | 'ring'];
// The one source chunk: allocated before the first reading, reused for every write.
const chunk = asciiChunk(CHUNK);

function collect(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Feeds `count` chunks to `write`, reading RSS as it goes; `before` is read after a collection. */
function swallow(count: number, write: () => void): MemorySample {
  collect();
  const before = process.memoryUsage.rss();
  let max = before;
  for (let i = 0; i < count; i++) {
    write();
    if (i % SAMPLE_EVERY === 0) max = Math.max(max, process.memoryUsage.rss());
  }
  const after = process.memoryUsage.rss();
  return { before, after, max: Math.max(max, after) };
}

async function measureCapture(dir: string, count: number, name: BackendName): Promise<MemorySample> {
  const backend = await loadBackend(name);
  let serial = 0;
  const options = (): CaptureOptions =>
    mode === 'spill'
      ? { stdoutCap: CAP, spillDir: dir, spillName: `memory-${++serial}`, spillCap: 1.5 * GiB }
      : { stdoutCap: CAP, ring: true };
  const once = (n: number): MemorySample => {
    let id = 0;
    const sample = swallow(n, () => {
      // Created inside the measured span: the capture's own buffers are part of the growth.
      if (id === 0) id = backend.create(options());
      backend.write(id, 0, chunk);
    });
    backend.finish(id);
    const info = backend.info(id, 0);
    sample.after = Math.max(sample.after, process.memoryUsage.rss());
    sample.max = Math.max(sample.max, sample.after);
    backend.free(id);
    if (info.total !== n * CHUNK) throw new Error(`${name}: captured ${info.total} of ${n * CHUNK} bytes`);
    if (mode === 'spill' && info.spill !== 'complete') throw new Error(`${name}: spill is ${info.spill}`);
    if (info.spillPath !== undefined) fs.rmSync(info.spillPath, { force: true });
    return sample;
  };
  // A short capture first, so code loading, JIT and the allocator's first arenas are not counted as growth.
  once((64 * MiB) / CHUNK);
  return once(count);
}

function measureNaive(dir: string, count: number): MemorySample {
  const once = (n: number, file: string): MemorySample => {
    const tail = new NaiveTail(CAP);
    const fd = mode === 'spill' ? fs.openSync(file, 'wx', 0o600) : -1;
    const sample = swallow(n, () => {
      tail.write(chunk);
      if (fd >= 0) for (let at = 0; at < CHUNK; ) at += fs.writeSync(fd, chunk, at, CHUNK - at);
    });
    if (fd >= 0) fs.closeSync(fd);
    fs.rmSync(file, { force: true });
    if (tail.bytes.length !== CAP) throw new Error('naive: wrong tail length');
    return sample;
  };
  once((64 * MiB) / CHUNK, path.join(dir, 'naive-warm'));
  return once(count, path.join(dir, 'naive'));
}

const count = GiB / CHUNK;
const sample = await withTempDir('memory', (dir) =>
  who === 'naive' ? measureNaive(dir, count) : measureCapture(dir, count, who),
);
process.stdout.write(`${JSON.stringify(sample)}\n`);
