// Tail suite: a tail-only capture of 1 GiB in 64 KiB chunks, native vs reference vs the naive concat-and-slice.
import type { CaptureBackend } from '../../src/capture/types.js';
import { loadBackends } from '../lib/backends.js';
import { asciiChunk } from '../lib/chunks.js';
import { NaiveTail } from '../lib/naive.js';
import { find, target, withRatios } from '../lib/rows.js';
import { runRounds, type StreamCase } from '../lib/streams.js';
import { timeSync } from '../lib/timed.js';
import type { SuiteResult } from '../lib/types.js';
import { fmt, GiB, KiB, MiB } from '../lib/units.js';

export const aliases = ['capture'];

const CHUNK = 64 * KiB;
const CAP = 64000;
const NAIVE = 'naive: Buffer.concat + subarray(-64000)';
const ROUNDS = 7;
const TARGET_TIMES = 3;

/** Four distinct chunks fed in turn, so the final tail shows whether the right bytes were kept. */
const CHUNKS = [0, 1, 2, 3].map((seed) => asciiChunk(CHUNK, seed));

function expectedTail(count: number): Buffer {
  return CHUNKS[(count - 1) % CHUNKS.length]!.subarray(-CAP);
}

function captureCase(backend: CaptureBackend, count: number): StreamCase {
  return {
    name: `${backend.kind} capture (tail only)`,
    baseline: NAIVE,
    once: () => {
      let id = 0;
      const timing = timeSync(() => {
        id = backend.create({ stdoutCap: CAP });
        for (let i = 0; i < count; i++) backend.write(id, 0, CHUNKS[i & 3]!);
        backend.finish(id);
      });
      try {
        const info = backend.info(id, 0);
        if (info.total !== count * CHUNK || !backend.tail(id, 0).equals(expectedTail(count))) {
          throw new Error(`${backend.kind}: the tail after ${count} chunks is not the stream's last ${CAP} bytes`);
        }
      } finally {
        backend.free(id);
      }
      return timing;
    },
  };
}

function naiveCase(count: number): StreamCase {
  return {
    name: NAIVE,
    once: () => {
      const naive = new NaiveTail(CAP);
      const timing = timeSync(() => {
        for (let i = 0; i < count; i++) naive.write(CHUNKS[i & 3]!);
      });
      if (!naive.bytes.equals(expectedTail(count))) throw new Error('naive: wrong tail');
      return timing;
    },
  };
}

function cases(backends: CaptureBackend[], count: number): StreamCase[] {
  return [naiveCase(count), ...backends.map((b) => captureCase(b, count))];
}

export async function run(): Promise<SuiteResult> {
  const { native, reference } = await loadBackends();
  const count = GiB / CHUNK;
  // One short pass first, so the first measured round does not pay for JIT compilation.
  runRounds(cases([native, reference], (32 * MiB) / CHUNK), 32 * MiB, 1);
  const rows = withRatios(runRounds(cases([native, reference], count), count * CHUNK, ROUNDS));
  const nativeRow = find(rows, 'native capture (tail only)');
  const naiveRow = find(rows, NAIVE);
  return {
    name: 'tail',
    description: 'tail-only capture of 1 GiB in 64 KiB chunks (stdout cap 64000, no spill directory)',
    tables: [{ title: '1 GiB in 64 KiB chunks, tail only', rows }],
    targets: [
      target(
        `native tail-only capture >= ${TARGET_TIMES}x the naive approach`,
        nativeRow.ratio,
        TARGET_TIMES,
        `${fmt(nativeRow.ratio)}x (medians ${fmt(nativeRow.value)} vs ${fmt(naiveRow.value)} MB/s)`,
      ),
    ],
    notes: [
      `MB/s: median of ${ROUNDS} runs per case, order rotated each round; ratios: median of per-round ratios ` +
        'against the naive run in the same round. Wall time includes create and finish.',
      'Four preallocated chunks are fed in turn; every run checks that the final tail is the last 64000 bytes.',
      'cpu s is user + system time of the whole process during the run.',
    ],
  };
}
