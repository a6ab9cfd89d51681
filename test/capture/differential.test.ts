// Differential tests: seeded random operation sequences run on both backends, compared byte for byte after every step.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { referenceBackend } from './reference/index.js';
import { nativeBackend } from '../../src/capture/native.js';
import type { CaptureBackend, CaptureOptions, ChunkKind, StreamId } from '../../src/capture/types.js';
import { mulberry32, type Rng } from './prng.js';

const SEQUENCES = 1000;
const FIRST_SEED = 0x5eed;

/** Both sides of one comparison: each backend spills into its own directory. */
interface Side {
  backend: CaptureBackend;
  root: string;
}

const sides: [Side, Side] = [
  { backend: referenceBackend, root: fs.mkdtempSync(path.join(os.tmpdir(), 'shellring-diff-reference-')) },
  { backend: nativeBackend, root: fs.mkdtempSync(path.join(os.tmpdir(), 'shellring-diff-native-')) },
];
afterAll(() => {
  for (const side of sides) fs.rmSync(side.root, { recursive: true, force: true });
});

/** Characters of every UTF-8 width, so random splits land inside 2-, 3- and 4-byte sequences. */
const CHARACTERS = ['a', 'z', '\n', ' ', 'é', 'ß', 'Ω', '€', '中', '☃', '😀', '𝄞', '🦀'];
/** Bytes that matter to the rules: ASCII, continuations, every lead width, and never-valid leads. */
const INTERESTING = [0x41, 0x0a, 0x80, 0x9f, 0xbf, 0xc3, 0xdf, 0xe2, 0xef, 0xf0, 0xf4, 0xf8, 0xff];

function randomText(rng: Rng, characters: number): Buffer {
  let text = '';
  for (let i = 0; i < characters; i++) text += rng.pick(CHARACTERS);
  return Buffer.from(text, 'utf8');
}

/** Hands out a UTF-8 text in pieces cut at arbitrary byte positions, like pipe reads do. */
class TextFeed {
  private pending = Buffer.alloc(0);
  constructor(private readonly rng: Rng) {}
  next(max: number): Buffer {
    if (this.pending.length < max) this.pending = Buffer.concat([this.pending, randomText(this.rng, max + 4)]);
    const n = this.rng.int(0, max);
    const piece = this.pending.subarray(0, n);
    this.pending = this.pending.subarray(n);
    return Buffer.from(piece);
  }
}

function randomChunk(rng: Rng, feed: TextFeed): Buffer {
  const max = rng.chance(0.1) ? 300 : 24;
  const style = rng.int(0, 9);
  if (style < 5) return feed.next(max);
  if (style < 8) {
    const out = Buffer.alloc(rng.int(0, max));
    for (let i = 0; i < out.length; i++) out[i] = rng.pick(INTERESTING);
    return out;
  }
  return rng.bytes(rng.int(0, max));
}

function randomCap(rng: Rng): number {
  return rng.pick([0, 1, 2, 3, 4, rng.int(5, 16), rng.int(17, 120), 64000]);
}

function randomOptions(rng: Rng, spillName: string | undefined): { options: CaptureOptions; spill: boolean } {
  const options: CaptureOptions = { stdoutCap: randomCap(rng), stderrCap: randomCap(rng) };
  const spill = rng.chance(0.7);
  if (spill && spillName !== undefined) options.spillName = spillName;
  if (rng.chance(0.5)) options.spillCap = rng.pick([0, 1, rng.int(2, 80), rng.int(80, 600)]);
  if (rng.chance(0.9)) {
    options.ring = rng.chance(0.15)
      ? true
      : { liveLimit: rng.pick([0, 1, 2, 3, 4, rng.int(5, 40), rng.int(40, 400)]), settledLimit: rng.int(0, 24) };
  }
  return { options, spill };
}

/** A call's outcome as plain data: thrown errors count, since both sides must throw the same thing. */
function outcome(call: () => unknown): unknown {
  try {
    return { ok: plain(call()) };
  } catch (error) {
    return { error: (error as Error).message, code: (error as { code?: unknown }).code };
  }
}

/** Buffers become hex, so a mismatch prints readably and compares exactly. */
function plain(value: unknown): unknown {
  if (value === undefined || value === null) return value;
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return `hex:${Buffer.from(value).toString('hex')}`;
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = plain((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/** The state both sides expose, with spill paths made relative to each side's own directory. */
function snapshot(side: Side, id: number, dir: string): unknown {
  const { backend } = side;
  const streams = ([0, 1] as StreamId[]).map((stream) => {
    const info = outcome(() => backend.info(id, stream)) as { ok?: { spillPath?: string } };
    let file: string | undefined;
    const spillPath = info.ok?.spillPath;
    if (typeof spillPath === 'string') {
      info.ok!.spillPath = path.relative(dir, spillPath);
      file = fs.existsSync(spillPath) ? fs.readFileSync(spillPath).toString('hex') : '(missing)';
    }
    return { info, tail: outcome(() => backend.tail(id, stream)), file };
  });
  return { streams, ring: outcome(() => backend.ringState(id)) };
}

type Step = { op: string; run: (backend: CaptureBackend, id: number) => unknown };

function randomStep(rng: Rng, feeds: [TextFeed, TextFeed, TextFeed], totals: () => number[]): Step {
  const roll = rng.int(0, 99);
  const max = () => rng.pick([0, 1, 2, 3, 4, rng.int(5, 40), rng.int(40, 1000), 1 << 20]);
  if (roll < 34) {
    const stream = rng.int(0, 1) as StreamId;
    const data = randomChunk(rng, feeds[stream]);
    return { op: `write(${stream}, ${data.toString('hex')})`, run: (b, id) => b.write(id, stream, data) };
  }
  if (roll < 48) {
    const kind = rng.pick<ChunkKind>(['stdout', 'stderr', 'log']);
    const data = randomChunk(rng, feeds[kind === 'stdout' ? 0 : kind === 'stderr' ? 1 : 2]);
    const gap = rng.chance(0.3);
    return {
      op: `ringAppend(${kind}, ${data.toString('hex')}, ${gap})`,
      run: (b, id) => b.ringAppend(id, kind, data, gap),
    };
  }
  if (roll < 58) {
    const n = max();
    return { op: `ringRead(${n})`, run: (b, id) => b.ringRead(id, n) };
  }
  if (roll < 66) {
    const size = rng.pick([0, 1, 2, 3, 4, rng.int(5, 60)]);
    return {
      op: `ringReadInto(${size})`,
      run: (b, id) => {
        // Garbage past the returned bytes must not matter, so each side gets the same pre-filled buffer.
        const buffer = Buffer.alloc(size, 0xee);
        const read = b.ringReadInto(id, buffer);
        return { read, bytes: buffer.subarray(0, read.bytes) };
      },
    };
  }
  if (roll < 78) {
    const ringTotal = totals()[2]!;
    const from = rng.int(0, ringTotal + 3);
    const n = max();
    return { op: `ringObserve(${from}, ${n})`, run: (b, id) => b.ringObserve(id, from, n) };
  }
  if (roll < 94) {
    const stream = rng.int(0, 1) as StreamId;
    const from = rng.int(0, totals()[stream]! + 3);
    const n = max();
    return { op: `observe(${stream}, ${from}, ${n})`, run: (b, id) => b.observe(id, stream, from, n) };
  }
  if (roll < 97) return { op: 'ringSettle()', run: (b, id) => b.ringSettle(id) };
  return { op: 'finish()', run: (b, id) => b.finish(id) };
}

/** Runs the same steps on both sides; throws at the first divergence, naming the steps that led to it. */
function runSequence(seed: number): void {
  const rng = mulberry32(seed);
  const name = rng.chance(0.5) ? `seq-${seed}` : undefined;
  const { options, spill } = randomOptions(rng, name);
  const dirs = sides.map((side) => path.join(side.root, String(seed)));
  const ids = sides.map((side, i) => {
    if (spill) fs.mkdirSync(dirs[i]!, { mode: 0o700 });
    return side.backend.create(spill ? { ...options, spillDir: dirs[i] } : options);
  });
  const log: string[] = [`create(${JSON.stringify(options)}${spill ? ' + spillDir' : ''})`];
  const feeds: [TextFeed, TextFeed, TextFeed] = [new TextFeed(rng), new TextFeed(rng), new TextFeed(rng)];
  const totals = () => {
    const b = sides[0].backend;
    const id = ids[0]!;
    const ring = outcome(() => b.ringState(id)) as { ok?: { total: number } };
    return [b.info(id, 0).total, b.info(id, 1).total, ring.ok?.total ?? 0];
  };
  const compare = (what: string, results: unknown[]) => {
    const [reference, native] = results.map((result) => JSON.stringify(result));
    if (reference === native) return;
    throw new Error(
      `seed ${seed}: the backends differ at ${what}\nsteps:\n  ${log.join('\n  ')}\n` +
        `reference: ${reference}\nnative:    ${native}`,
    );
  };
  compare('create (ids)', ids);
  compare('after create', sides.map((side, i) => snapshot(side, ids[i]!, dirs[i]!)));
  const steps = rng.int(10, 100);
  for (let s = 0; s < steps; s++) {
    const step = randomStep(rng, feeds, totals);
    log.push(step.op);
    compare(step.op, sides.map((side, i) => outcome(() => step.run(side.backend, ids[i]!))));
    compare(`state after ${step.op}`, sides.map((side, i) => snapshot(side, ids[i]!, dirs[i]!)));
  }
  log.push('finish()');
  sides.forEach((side, i) => {
    side.backend.finish(ids[i]!);
  });
  compare('state after the final finish', sides.map((side, i) => snapshot(side, ids[i]!, dirs[i]!)));
  log.push('ringRead(all)');
  compare('final ringRead', sides.map((side, i) => outcome(() => side.backend.ringRead(ids[i]!, 1 << 30))));
  compare('state after the final read', sides.map((side, i) => snapshot(side, ids[i]!, dirs[i]!)));
  sides.forEach((side, i) => {
    side.backend.free(ids[i]!);
  });
  if (spill) {
    const listing = dirs.map((dir) => fs.readdirSync(dir).sort());
    compare('spill directory after free', listing);
    const files = dirs.map((dir, i) => listing[i]!.map((f) => fs.readFileSync(path.join(dir, f)).toString('hex')));
    compare('spill files after free', files);
  }
}

describe('reference and native agree', () => {
  const seeds = Array.from({ length: SEQUENCES }, (_, i) => FIRST_SEED + i);
  it.each(seeds)('random sequence, seed %i', (seed) => runSequence(seed));

  it('agree on every split of multi-byte text into two and three writes', () => {
    const text = Buffer.from('a€😀éb中𝄞ß\n', 'utf8');
    for (const cap of [0, 1, 2, 3, 4, 5, 7, text.length - 1, text.length, 64000]) {
      for (let i = 0; i <= text.length; i++) {
        for (let j = i; j <= text.length; j++) {
          const pieces = [text.subarray(0, i), text.subarray(i, j), text.subarray(j)];
          const results = sides.map(({ backend }) => {
            const id = backend.create({ stdoutCap: cap, ring: { liveLimit: cap + 1, settledLimit: 3 } });
            const seen: unknown[] = [];
            for (const piece of pieces) {
              backend.write(id, 0, piece);
              seen.push(plain(backend.observe(id, 0, 0, 5)), plain(backend.tail(id, 0)), plain(backend.info(id, 0)));
              seen.push(plain(backend.ringObserve(id, 0, 4)), plain(backend.ringState(id)));
            }
            backend.finish(id);
            seen.push(plain(backend.observe(id, 0, 0, 1 << 20)), plain(backend.ringRead(id, 1 << 20)));
            seen.push(plain(backend.ringState(id)));
            backend.free(id);
            return seen;
          });
          const [reference, native] = results.map((result) => JSON.stringify(result));
          if (reference !== native) {
            throw new Error(`split cap=${cap} i=${i} j=${j}\nreference: ${reference}\nnative:    ${native}`);
          }
        }
      }
    }
  });
});
