// Ring suite: append + consumer read of 64 KiB and 4 KiB chunks, native vs reference vs a Buffer.copy loop.
import { ringReadBytes } from '../../src/capture/read-bytes.js';
import type { CaptureBackend } from '../../src/capture/types.js';
import { loadBackends } from '../lib/backends.js';
import { asciiChunk } from '../lib/chunks.js';
import { find, target, withRatios } from '../lib/rows.js';
import { measure, type ByteTask } from '../lib/tiny.js';
import type { SuiteResult, Table, Target } from '../lib/types.js';
import { fmt, KiB, MiB, pct } from '../lib/units.js';

const SIZES = [64 * KiB, 4 * KiB];
/** Each timed call moves 1 MiB, so a 4 KiB call is not dominated by the timer itself. */
const BYTES_PER_CALL = MiB;
const COPY = 'copy loop (Buffer.copy)';
const TARGET_RATIO = 0.4;

function sizeLabel(size: number): string {
  return `${size / KiB} KiB`;
}

/** Fails the run if a backend's consumer reads do not hand back exactly what was appended. */
function verify(backend: CaptureBackend, size: number): void {
  const id = backend.create({ ring: true });
  try {
    const chunk = asciiChunk(size, 3);
    const into = Buffer.alloc(size);
    backend.ringAppend(id, 'stdout', chunk, false);
    const r = backend.ringReadInto(id, into);
    if (r.bytes !== size || !into.equals(chunk)) throw new Error(`${backend.kind} ringReadInto returned other bytes`);
    into.fill(0);
    backend.ringAppend(id, 'stdout', chunk, false);
    if (ringReadBytes(backend, id, into) !== size || !into.equals(chunk)) {
      throw new Error(`${backend.kind} ringReadBytes returned other bytes`);
    }
    backend.ringAppend(id, 'stdout', chunk, false);
    const read = Buffer.concat(backend.ringRead(id, size).segments.map((s) => s.data));
    if (!read.equals(chunk)) throw new Error(`${backend.kind} ringRead returned other bytes`);
  } finally {
    backend.free(id);
  }
}

/** The tasks of one backend at one chunk size; each owns a capture with a ring, freed by `release`. */
function backendTasks(backend: CaptureBackend, size: number, release: (() => void)[]): ByteTask[] {
  const n = BYTES_PER_CALL / size;
  const src = asciiChunk(size);
  const dst = Buffer.alloc(size);
  const ring = (): number => {
    const id = backend.create({ ring: true });
    release.push(() => backend.free(id));
    return id;
  };
  const checked = (bytes: number): number => {
    // A short read would back the ring up and turn the figure into one of eviction.
    if (bytes !== size) throw new Error(`${backend.kind}: read ${bytes} of ${size} bytes`);
    return bytes;
  };
  const base = { bytes: BYTES_PER_CALL, ops: n, baseline: COPY };
  const appendInto = ring();
  const appendRead = ring();
  const writeInto = ring();
  return [
    {
      ...base,
      name: `${backend.kind} ringAppend + ringReadBytes`,
      fn: () => {
        let sum = 0;
        for (let i = 0; i < n; i++) {
          backend.ringAppend(appendInto, 'stdout', src, false);
          sum += checked(ringReadBytes(backend, appendInto, dst));
        }
        return sum + dst[sum % size]!;
      },
    },
    {
      ...base,
      name: `${backend.kind} ringAppend + ringRead`,
      fn: () => {
        let sum = 0;
        for (let i = 0; i < n; i++) {
          backend.ringAppend(appendRead, 'stdout', src, false);
          let got = 0;
          for (const segment of backend.ringRead(appendRead, size).segments) got += segment.data.length;
          sum += checked(got);
        }
        return sum;
      },
    },
    {
      ...base,
      name: `${backend.kind} write (tail + ring) + ringReadBytes`,
      fn: () => {
        let sum = 0;
        for (let i = 0; i < n; i++) {
          backend.write(writeInto, 0, src);
          sum += checked(ringReadBytes(backend, writeInto, dst));
        }
        return sum + dst[sum % size]!;
      },
    },
  ];
}

function copyTasks(size: number): ByteTask[] {
  const n = BYTES_PER_CALL / size;
  const src = asciiChunk(size);
  const mid = Buffer.alloc(size);
  const dst = Buffer.alloc(size);
  const base = { bytes: BYTES_PER_CALL, ops: n };
  return [
    {
      ...base,
      name: COPY,
      fn: () => {
        let sum = 0;
        for (let i = 0; i < n; i++) sum += src.copy(dst, 0);
        return sum + dst[sum % size]!;
      },
    },
    {
      // What any store-then-read design costs at the least: the chunk is copied in, then out.
      ...base,
      name: 'two copies (Buffer.copy in, then out)',
      baseline: COPY,
      fn: () => {
        let sum = 0;
        for (let i = 0; i < n; i++) sum += src.copy(mid, 0) + mid.copy(dst, 0);
        return sum + dst[sum % size]!;
      },
    },
  ];
}

export async function run(): Promise<SuiteResult> {
  const { native, reference } = await loadBackends();
  const tables: Table[] = [];
  const targets: Target[] = [];
  for (const size of SIZES) {
    verify(native, size);
    verify(reference, size);
    const release: (() => void)[] = [];
    try {
      const tasks = [...copyTasks(size), ...backendTasks(native, size, release), ...backendTasks(reference, size, release)];
      const rows = withRatios(await measure(tasks, { time: 800, warmupTime: 200 }));
      tables.push({ title: `${sizeLabel(size)} chunks`, rows });
      const copy = find(rows, COPY);
      for (const name of ['native ringAppend + ringReadBytes', 'native ringAppend + ringRead']) {
        const row = find(rows, name);
        targets.push(
          target(
            `${name} (${sizeLabel(size)}) >= ${pct(TARGET_RATIO)} of the copy loop`,
            row.ratio,
            TARGET_RATIO,
            `${pct(row.ratio)} (${fmt(row.value)} vs ${fmt(copy.value)} MB/s)`,
          ),
        );
      }
    } finally {
      for (const free of release) free();
    }
  }
  return {
    name: 'ring',
    description: 'job ring: append one chunk, then a consumer read of it, per operation',
    tables,
    targets,
    notes: [
      'Each timed call moves 1 MiB (16 chunks of 64 KiB or 256 of 4 KiB); MB/s is from the median call time.',
      'The copy loop is one Buffer.copy of the same chunk into a preallocated buffer of the same size: the memcpy ' +
        'ceiling. An append + read copies the bytes twice (into the ring, out of it); the two-copies row measures that.',
      'ringReadBytes reads into one preallocated Buffer and builds no segment list (it is ringReadInto without ' +
        'one; the reference goes through its ringReadInto); ringRead returns fresh Buffers (native: one per read, ' +
        'its segments are views of it; reference: one per segment).',
      'rss +MiB is the RSS growth over a task\'s measured phase, which runs without an event-loop turn.',
      '"write (tail + ring)" writes through the capture, so the 64000-byte stdout tail takes the chunk too.',
    ],
  };
}
