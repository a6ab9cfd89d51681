// Spill suite: capture with a spill file, 1 GiB in 64 KiB chunks, against dd and a node writeSync loop.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CaptureBackend } from '../../src/capture/types.js';
import { loadBackends } from '../lib/backends.js';
import { asciiChunk } from '../lib/chunks.js';
import { NaiveTail } from '../lib/naive.js';
import { find, target, withRatios } from '../lib/rows.js';
import { runRounds, type StreamCase } from '../lib/streams.js';
import { removeFile, withTempDir } from '../lib/tempdir.js';
import { timeChild, timeSync } from '../lib/timed.js';
import type { Row, SuiteResult } from '../lib/types.js';
import { fmt, GiB, KiB, median, MiB, pct } from '../lib/units.js';

export const aliases = ['capture'];

const CHUNK = 64 * KiB;
const CAP = 64000;
/** Above the 1 GiB written, so the spill is never dropped for size. */
const SPILL_CAP = 1.5 * GiB;
const DD = 'dd if=/dev/zero bs=64k';
const WRITE_SYNC = 'node fs.writeSync loop';
const NAIVE = 'naive: concat tail + fs.writeSync';
const ROUNDS = 7;
const TARGET_RATIO = 0.8;

const CHUNKS = [0, 1, 2, 3].map((seed) => asciiChunk(CHUNK, seed));

function expectSize(file: string, bytes: number, who: string): void {
  const size = fs.statSync(file).size;
  if (size !== bytes) throw new Error(`${who}: wrote ${size} bytes, expected ${bytes}`);
}

function writeAll(fd: number, chunk: Buffer): void {
  for (let at = 0; at < chunk.length; ) at += fs.writeSync(fd, chunk, at, chunk.length - at);
}

/** Names are never reused within a run: the spill file is created with O_EXCL. */
let serial = 0;

function cases(backends: CaptureBackend[], dir: string, count: number): StreamCase[] {
  const bytes = count * CHUNK;
  const dd: StreamCase = {
    name: DD,
    once: () => {
      const file = path.join(dir, 'x');
      let status: number | null = null;
      let stderr = '';
      const timing = timeChild(() => {
        const child = spawnSync('dd', ['if=/dev/zero', `of=${file}`, 'bs=64k', `count=${count}`], {
          stdio: ['ignore', 'ignore', 'pipe'],
          encoding: 'utf8',
        });
        status = child.status;
        stderr = child.stderr;
      });
      if (status !== 0) throw new Error(`dd failed (${status}): ${stderr}`);
      expectSize(file, bytes, 'dd');
      removeFile(file);
      return timing;
    },
  };
  const writeSync: StreamCase = {
    name: WRITE_SYNC,
    baseline: DD,
    once: () => {
      const file = path.join(dir, `write-${++serial}`);
      const timing = timeSync(() => {
        const fd = fs.openSync(file, 'wx', 0o600);
        for (let i = 0; i < count; i++) writeAll(fd, CHUNKS[i & 3]!);
        fs.closeSync(fd);
      });
      expectSize(file, bytes, 'writeSync');
      removeFile(file);
      return timing;
    },
  };
  const naive: StreamCase = {
    name: NAIVE,
    baseline: DD,
    once: () => {
      const file = path.join(dir, `naive-${++serial}`);
      const timing = timeSync(() => {
        const tail = new NaiveTail(CAP);
        const fd = fs.openSync(file, 'wx', 0o600);
        for (let i = 0; i < count; i++) {
          tail.write(CHUNKS[i & 3]!);
          writeAll(fd, CHUNKS[i & 3]!);
        }
        fs.closeSync(fd);
      });
      expectSize(file, bytes, 'naive');
      removeFile(file);
      return timing;
    },
  };
  const captures = backends.map((backend): StreamCase => ({
    name: `${backend.kind} capture (tail + spill)`,
    baseline: DD,
    once: () => {
      let id = 0;
      const timing = timeSync(() => {
        id = backend.create({ stdoutCap: CAP, spillDir: dir, spillName: `${backend.kind}-${++serial}`, spillCap: SPILL_CAP });
        for (let i = 0; i < count; i++) backend.write(id, 0, CHUNKS[i & 3]!);
        backend.finish(id);
      });
      const info = backend.info(id, 0);
      backend.free(id);
      if (info.spill !== 'complete' || info.spillPath === undefined) {
        throw new Error(`${backend.kind}: spill is ${info.spill} after ${bytes} bytes`);
      }
      expectSize(info.spillPath, bytes, backend.kind);
      removeFile(info.spillPath);
      return timing;
    },
  }));
  return [dd, writeSync, ...captures, naive];
}

/** Adds each row's ratio to the writeSync loop, the second baseline, as a median of per-round ratios. */
function versusWriteSync(rows: Row[]): Row[] {
  const base = find(rows, WRITE_SYNC).extra!['runs MB/s'] as number[];
  return rows.map((row) => {
    const runs = row.extra!['runs MB/s'] as number[];
    return { ...row, extra: { 'x writeSync': median(runs.map((rate, round) => rate / base[round]!)), ...row.extra } };
  });
}

export async function run(): Promise<SuiteResult> {
  const { native, reference } = await loadBackends();
  const count = GiB / CHUNK;
  const rows = await withTempDir('spill', (dir) => {
    // One short pass first, so the first measured round does not pay for JIT compilation.
    runRounds(cases([native, reference], dir, (32 * MiB) / CHUNK), 32 * MiB, 1);
    return versusWriteSync(withRatios(runRounds(cases([native, reference], dir, count), count * CHUNK, ROUNDS)));
  });
  const nativeRow = find(rows, 'native capture (tail + spill)');
  const ddRow = find(rows, DD);
  return {
    name: 'spill',
    description: 'capture with a spill file, 1 GiB in 64 KiB chunks, into a fresh 0700 temp dir',
    tables: [{ title: '1 GiB in 64 KiB chunks, to a file in the same directory', rows }],
    targets: [
      target(
        `native spill >= ${pct(TARGET_RATIO)} of dd`,
        nativeRow.ratio,
        TARGET_RATIO,
        `${pct(nativeRow.ratio)} (medians ${fmt(nativeRow.value)} vs ${fmt(ddRow.value)} MB/s)`,
      ),
    ],
    notes: [
      `MB/s: median of ${ROUNDS} runs per case, order rotated each round; ratios: median of per-round ratios ` +
        'against the baseline\'s run in the same round. Every file is removed right after its run.',
      `dd is timed as a child process (spawn included); its cpu s is the child's (/proc cutime + cstime).`,
      'Captures run with stdout cap 64000 and spillCap 1.5 GiB; each run checks the spill is complete and 1 GiB.',
      'Nothing is fsynced: every case measures writes into the page cache of the same file system.',
    ],
  };
}
