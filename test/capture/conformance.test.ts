// One conformance suite for every capture backend: the rules of crates/core/README.md as exact expected values.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { referenceBackend } from './reference/index.js';
import { nativeBackend } from '../../src/capture/native.js';
import type { CaptureBackend, RingRead } from '../../src/capture/types.js';

const b = (...bytes: number[]): Buffer => Buffer.from(bytes);
const t = (text: string): Buffer => Buffer.from(text, 'utf8');
const EURO = t('€'); // E2 82 AC
const GRIN = t('😀'); // F0 9F 98 80

/** The error a call throws, so message and code can be asserted exactly. */
function thrown(call: () => unknown): { message: string; code: unknown } {
  try {
    call();
  } catch (error) {
    return { message: (error as Error).message, code: (error as { code?: unknown }).code };
  }
  throw new Error('expected the call to throw');
}

const segments = (read: RingRead) => read.segments.map((s) => [s.kind, s.gap, s.data.toString('latin1')]);

/** A private tmpfs of a few pages: the only way to make a spill write fail with a real ENOSPC. */
function mountTinyTmpfs(): string | undefined {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shellring-enospc-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,mode=0700', 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    fs.rmdirSync(dir);
    return undefined;
  }
}

const tinyFs = mountTinyTmpfs();
afterAll(() => {
  if (tinyFs === undefined) return;
  execFileSync('umount', [tinyFs]);
  fs.rmdirSync(tinyFs);
});

describe.each([
  ['reference', referenceBackend],
  ['native', nativeBackend],
] as [string, CaptureBackend][])('%s backend', (kind, backend) => {
  describe('registry', () => {
    // First in this block: nothing in this process has created a capture on this backend yet.
    it('numbers captures from 1 and never reuses an id', () => {
      expect(backend.kind).toBe(kind);
      const ids = [backend.create(), backend.create()];
      expect(ids).toEqual([1, 2]);
      for (const id of ids) backend.free(id);
      expect(backend.create()).toBe(3);
      backend.free(3);
    });

    it('rejects an unknown or freed id on every operation', () => {
      const id = backend.create({ ring: true });
      backend.free(id);
      const calls: (() => unknown)[] = [
        () => backend.write(id, 0, t('x')),
        () => backend.finish(id),
        () => backend.info(id, 0),
        () => backend.tail(id, 1),
        () => backend.observe(id, 0, 0, 10),
        () => backend.ringAppend(id, 'log', t('x'), false),
        () => backend.ringRead(id, 10),
        () => backend.ringReadInto(id, Buffer.alloc(4)),
        () => backend.ringObserve(id, 0, 10),
        () => backend.ringSettle(id),
        () => backend.ringState(id),
        () => backend.free(id),
      ];
      for (const call of calls) {
        expect(thrown(call)).toEqual({ message: `unknown capture ${id}`, code: 'SHELLRING_UNKNOWN_CAPTURE' });
      }
    });

    it('rejects ring operations on a capture without a ring', () => {
      const id = backend.create();
      expect(thrown(() => backend.ringRead(id, 1))).toEqual({
        message: `capture ${id} has no ring`,
        code: 'SHELLRING_NO_RING',
      });
      expect(thrown(() => backend.ringAppend(id, 'log', t('x'), false)).code).toBe('SHELLRING_NO_RING');
      backend.free(id);
    });

    it('rejects a spill name that would leave the spill directory', () => {
      for (const name of ['', '.', '..', 'a/b']) {
        expect(thrown(() => backend.create({ spillName: name }))).toEqual({
          message: `invalid capture options: spillName must be a plain file name, got ${JSON.stringify(name)}`,
          code: 'SHELLRING_INVALID_OPTIONS',
        });
      }
    });
  });

  describe('arguments', () => {
    const invalid = (message: string) => ({ message, code: 'SHELLRING_INVALID_ARGUMENT' });

    it('rejects counts that are not non-negative integers, and takes Infinity as no limit', () => {
      const id = backend.create({ ring: true });
      backend.write(id, 0, t('hello'));
      backend.ringAppend(id, 'log', t('x'), false);
      expect(thrown(() => backend.observe(id, 0, 0, -1))).toEqual(
        invalid('invalid max: expected a non-negative integer, got -1'),
      );
      expect(thrown(() => backend.observe(id, 0, 1.5, 1))).toEqual(
        invalid('invalid from: expected a non-negative integer, got 1.5'),
      );
      expect(thrown(() => backend.ringRead(id, NaN))).toEqual(
        invalid('invalid max: expected a non-negative integer, got NaN'),
      );
      expect(thrown(() => backend.ringObserve(id, -Infinity, 1))).toEqual(
        invalid('invalid from: expected a non-negative integer, got -inf'),
      );
      expect(thrown(() => backend.ringObserve(id, 0, 1e-7))).toEqual(
        invalid('invalid max: expected a non-negative integer, got 0.0000001'),
      );
      expect(backend.observe(id, 0, Infinity, Infinity)).toEqual({ data: b(), from: 5, next: 5, lossy: false });
      expect(backend.observe(id, 0, 0, Infinity).data).toEqual(t('hello'));
      expect(backend.ringObserve(id, 0, Infinity).to).toBe(6);
      expect(backend.ringState(id).consumer).toBe(0);
      backend.free(id);
    });

    it('rejects option values that are not non-negative integers, ring limits first', () => {
      expect(thrown(() => backend.create({ stdoutCap: -1, ring: { liveLimit: 1.5 } }))).toEqual(
        invalid('invalid ring.liveLimit: expected a non-negative integer, got 1.5'),
      );
      expect(thrown(() => backend.create({ stderrCap: 2.5, spillName: 'a/b' }))).toEqual(
        invalid('invalid stderrCap: expected a non-negative integer, got 2.5'),
      );
      expect(thrown(() => backend.create({ spillCap: -2 }))).toEqual(
        invalid('invalid spillCap: expected a non-negative integer, got -2'),
      );
      const id = backend.create({ stdoutCap: Infinity, spillCap: Infinity, ring: { settledLimit: Infinity } });
      backend.write(id, 0, Buffer.alloc(100000, 0x61));
      expect(backend.info(id, 0)).toEqual({ total: 100000, retained: 100000, truncated: false, spill: 'none' });
      backend.free(id);
    });

    it('converts the stream like a u32 and rejects anything but 0 and 1', () => {
      const id = backend.create();
      expect(thrown(() => backend.info(id, 2 as 0))).toEqual(
        invalid('invalid stream: expected 0 (stdout) or 1 (stderr), got 2'),
      );
      expect(thrown(() => backend.write(id, -1 as 0, t('x')))).toEqual(
        invalid('invalid stream: expected 0 (stdout) or 1 (stderr), got 4294967295'),
      );
      backend.write(id, 1.5 as 1, t('e'));
      expect(backend.info(id, 1).total).toBe(1);
      // The id is checked first when no capture could have it; the other arguments before existence.
      expect(thrown(() => backend.info(0, 2 as 0)).code).toBe('SHELLRING_UNKNOWN_CAPTURE');
      expect(thrown(() => backend.info(id + 1000, 2 as 0)).code).toBe('SHELLRING_INVALID_ARGUMENT');
      backend.free(id);
    });

    it('rejects an unknown chunk kind', () => {
      const id = backend.create({ ring: true });
      expect(thrown(() => backend.ringAppend(id, 'std"out' as 'log', t('x'), false))).toEqual(
        invalid('invalid chunk kind: expected "stdout", "stderr" or "log", got "std\\"out"'),
      );
      backend.free(id);
    });

    it('prints impossible ids as the core does', () => {
      for (const [value, shown] of [
        [0, '0'],
        [-0, '-0'],
        [1.5, '1.5'],
        [1e21, '1000000000000000000000'],
        [Infinity, 'Infinity'],
        [-Infinity, '-Infinity'],
        [NaN, 'NaN'],
      ] as const) {
        expect(thrown(() => backend.info(value, 0))).toEqual({
          message: `unknown capture ${shown}`,
          code: 'SHELLRING_UNKNOWN_CAPTURE',
        });
      }
    });
  });

  describe('tail', () => {
    it('keeps the last cap bytes, counts every byte, and truncates only past the cap', () => {
      const id = backend.create({ stdoutCap: 4 });
      backend.write(id, 0, t('ab'));
      backend.write(id, 0, t('cd'));
      expect(backend.info(id, 0)).toEqual({ total: 4, retained: 4, truncated: false, spill: 'none' });
      backend.write(id, 0, t('e'));
      expect(backend.info(id, 0)).toEqual({ total: 5, retained: 4, truncated: true, spill: 'unavailable' });
      expect(backend.tail(id, 0)).toEqual(t('bcde'));
      backend.write(id, 0, t('0123456789'));
      expect(backend.tail(id, 0)).toEqual(t('6789'));
      expect(backend.info(id, 0).total).toBe(15);
      expect(backend.info(id, 1)).toEqual({ total: 0, retained: 0, truncated: false, spill: 'none' });
      backend.free(id);
    });

    it('defaults to 64000 bytes per stream', () => {
      const id = backend.create();
      backend.write(id, 1, Buffer.alloc(64000, 0x61));
      expect(backend.info(id, 1)).toEqual({ total: 64000, retained: 64000, truncated: false, spill: 'none' });
      backend.write(id, 1, t('b'));
      expect(backend.info(id, 1)).toEqual({ total: 64001, retained: 64000, truncated: true, spill: 'unavailable' });
      backend.free(id);
    });

    it('keeps nothing with cap 0', () => {
      const id = backend.create({ stdoutCap: 0 });
      backend.write(id, 0, t('hello'));
      expect(backend.info(id, 0)).toEqual({ total: 5, retained: 0, truncated: true, spill: 'unavailable' });
      expect(backend.tail(id, 0)).toEqual(b());
      expect(backend.observe(id, 0, 0, 10)).toEqual({ data: b(), from: 5, next: 5, lossy: true });
      backend.free(id);
    });

    it('skips a character cut by the drop, and only after dropping', () => {
      const id = backend.create({ stdoutCap: 4, stderrCap: 8 });
      backend.write(id, 1, b(0x80, 0x80, 0x61));
      expect(backend.tail(id, 1)).toEqual(b(0x80, 0x80, 0x61));
      backend.write(id, 0, t('ab€')); // keeps 62 E2 82 AC
      expect(backend.tail(id, 0)).toEqual(t('b€'));
      backend.write(id, 0, t('yz')); // keeps 82 AC 79 7A
      expect(backend.tail(id, 0)).toEqual(t('yz'));
      expect(backend.info(id, 0)).toMatchObject({ total: 7, retained: 2 });
      backend.free(id);
    });

    it('observes by absolute offset without changing anything', () => {
      const id = backend.create({ stdoutCap: 8 });
      backend.write(id, 0, t('hello world'));
      expect(backend.observe(id, 0, 0, 100)).toEqual({ data: t('lo world'), from: 3, next: 11, lossy: true });
      expect(backend.observe(id, 0, 5, 100)).toEqual({ data: t(' world'), from: 5, next: 11, lossy: false });
      expect(backend.observe(id, 0, 5, 3)).toEqual({ data: t(' wo'), from: 5, next: 8, lossy: false });
      expect(backend.observe(id, 0, 99, 3)).toEqual({ data: b(), from: 11, next: 11, lossy: false });
      expect(backend.tail(id, 0)).toEqual(t('lo world'));
      backend.free(id);
    });

    it('holds back an incomplete sequence until the capture is finished', () => {
      const id = backend.create();
      backend.write(id, 0, t('ab'));
      backend.write(id, 0, GRIN.subarray(0, 3));
      expect(backend.observe(id, 0, 0, 100)).toEqual({ data: t('ab'), from: 0, next: 2, lossy: false });
      expect(backend.tail(id, 0)).toEqual(Buffer.concat([t('ab'), GRIN.subarray(0, 3)]));
      backend.finish(id);
      backend.finish(id);
      expect(backend.observe(id, 0, 0, 100).data).toEqual(Buffer.concat([t('ab'), GRIN.subarray(0, 3)]));
      backend.free(id);
    });

    it('cuts an observe at a character boundary, forward when nothing fits', () => {
      const id = backend.create();
      backend.write(id, 0, t('a😀b'));
      expect(backend.observe(id, 0, 0, 3).data).toEqual(t('a'));
      expect(backend.observe(id, 0, 1, 1)).toEqual({ data: GRIN, from: 1, next: 5, lossy: false });
      expect(backend.observe(id, 0, 2, 1)).toEqual({ data: b(0x9f, 0x98, 0x80), from: 2, next: 5, lossy: false });
      expect(backend.observe(id, 0, 0, 0)).toEqual({ data: b(), from: 0, next: 0, lossy: false });
      backend.free(id);
    });
  });

  describe('spill', () => {
    let dir: string;
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), `shellring-${kind}-`));
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('is unavailable at overflow without a directory', () => {
      const id = backend.create({ stdoutCap: 3 });
      backend.write(id, 0, t('abc'));
      expect(backend.info(id, 0).spill).toBe('none');
      backend.write(id, 0, t('d'));
      expect(backend.info(id, 0).spill).toBe('unavailable');
      backend.free(id);
    });

    it('creates <name>.<stream>.log at the first overflow, mode 0600, with the whole stream', () => {
      const id = backend.create({ stdoutCap: 4, stderrCap: 1, spillDir: dir, spillName: 'job' });
      const file = path.join(dir, 'job.stdout.log');
      backend.write(id, 0, t('abc'));
      expect(fs.readdirSync(dir)).toEqual([]);
      backend.write(id, 0, t('def'));
      expect(backend.info(id, 0)).toEqual({
        total: 6,
        retained: 4,
        truncated: true,
        spill: 'active',
        spillPath: file,
      });
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(fs.readFileSync(file)).toEqual(t('abcdef'));
      backend.write(id, 0, t('ghi'));
      backend.write(id, 1, t('e'));
      backend.write(id, 1, t('rr'));
      backend.finish(id);
      expect(backend.info(id, 0)).toEqual({
        total: 9,
        retained: 4,
        truncated: true,
        spill: 'complete',
        spillPath: file,
      });
      expect(backend.info(id, 1)).toMatchObject({ spill: 'complete', spillPath: path.join(dir, 'job.stderr.log') });
      expect(fs.readFileSync(file)).toEqual(t('abcdefghi'));
      expect(fs.readFileSync(path.join(dir, 'job.stderr.log'))).toEqual(t('err'));
      backend.free(id);
      expect(fs.readFileSync(file)).toEqual(t('abcdefghi'));
    });

    it('names spill files capture-<id> by default', () => {
      const id = backend.create({ stdoutCap: 0, spillDir: dir });
      backend.write(id, 0, t('x'));
      expect(backend.info(id, 0).spillPath).toBe(path.join(dir, `capture-${id}.stdout.log`));
      backend.free(id);
    });

    it('never writes through an existing file', () => {
      const file = path.join(dir, 'taken.stdout.log');
      fs.writeFileSync(file, 'someone else');
      const id = backend.create({ stdoutCap: 1, spillDir: dir, spillName: 'taken' });
      expect(() => backend.write(id, 0, t('abc'))).not.toThrow();
      expect(backend.info(id, 0)).toEqual({ total: 3, retained: 1, truncated: true, spill: 'unavailable' });
      backend.finish(id);
      expect(fs.readFileSync(file, 'utf8')).toBe('someone else');
      backend.free(id);
    });

    it('removes the file past the spill cap and never creates one past it', () => {
      const id = backend.create({ stdoutCap: 2, stderrCap: 2, spillDir: dir, spillName: 'capped', spillCap: 6 });
      backend.write(id, 0, t('abcd'));
      backend.write(id, 0, t('ef'));
      expect(backend.info(id, 0).spill).toBe('active');
      expect(fs.readFileSync(path.join(dir, 'capped.stdout.log'))).toEqual(t('abcdef'));
      backend.write(id, 0, t('g'));
      expect(backend.info(id, 0)).toEqual({ total: 7, retained: 2, truncated: true, spill: 'unavailable' });
      backend.write(id, 1, t('0123456'));
      expect(backend.info(id, 1).spill).toBe('unavailable');
      expect(fs.readdirSync(dir)).toEqual([]);
      backend.finish(id);
      expect(backend.info(id, 0).spill).toBe('unavailable');
      backend.free(id);
    });

    it('makes the directory again (0700) when it was removed before the overflow, and spills the whole stream', () => {
      const id = backend.create({ stdoutCap: 2, spillDir: dir, spillName: 'again' });
      backend.write(id, 0, t('ab'));
      fs.rmSync(dir, { recursive: true });
      backend.write(id, 0, t('cd'));
      backend.finish(id);
      const file = path.join(dir, 'again.stdout.log');
      expect(backend.info(id, 0)).toEqual({ total: 4, retained: 2, truncated: true, spill: 'complete', spillPath: file });
      expect(fs.readFileSync(file)).toEqual(t('abcd'));
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
      backend.free(id);
    });

    it('makes the directory and its parent (the runtime\'s root) again when both are removed underneath', () => {
      const spillDir = path.join(dir, `root-${kind}`, 'session');
      fs.mkdirSync(spillDir, { recursive: true });
      const id = backend.create({ stdoutCap: 2, spillDir, spillName: 'remade' });
      backend.write(id, 0, t('ab'));
      fs.rmSync(path.join(dir, `root-${kind}`), { recursive: true });
      backend.write(id, 0, t('cd'));
      backend.finish(id);
      const info = backend.info(id, 0);
      expect(info).toEqual({ total: 4, retained: 2, truncated: true, spill: 'complete', spillPath: path.join(spillDir, 'remade.stdout.log') });
      expect(fs.readFileSync(info.spillPath!, 'utf8')).toBe('abcd');
      expect(fs.statSync(path.join(dir, `root-${kind}`)).mode & 0o777).toBe(0o700);
      expect(fs.statSync(spillDir).mode & 0o777).toBe(0o700);
      backend.free(id);
    });

    it('turns unavailable when the directory, its parent and the one above are removed underneath, and the call succeeds', () => {
      const spillDir = path.join(dir, 'top', 'root', 'session');
      fs.mkdirSync(spillDir, { recursive: true });
      const id = backend.create({ stdoutCap: 2, spillDir });
      backend.write(id, 0, t('ab'));
      fs.rmSync(path.join(dir, 'top'), { recursive: true });
      expect(() => backend.write(id, 0, t('cd'))).not.toThrow();
      expect(backend.info(id, 0)).toEqual({ total: 4, retained: 2, truncated: true, spill: 'unavailable' });
      expect(backend.tail(id, 0)).toEqual(t('cd'));
      expect(fs.existsSync(path.join(dir, 'top'))).toBe(false);
      backend.finish(id);
      backend.free(id);
    });

    it('does not report a file unlinked underneath as complete', () => {
      const id = backend.create({ stdoutCap: 2, spillDir: dir, spillName: 'gone' });
      backend.write(id, 0, t('abc'));
      fs.unlinkSync(backend.info(id, 0).spillPath!);
      backend.write(id, 0, t('d'));
      backend.finish(id);
      expect(backend.info(id, 0)).toEqual({ total: 4, retained: 2, truncated: true, spill: 'unavailable' });
      backend.free(id);
    });

    it.skipIf(tinyFs === undefined)('gives up and removes the file when the disk is full (needs root for a tmpfs)', () => {
      const id = backend.create({ stdoutCap: 16, spillDir: tinyFs, spillName: `full-${kind}` });
      const file = path.join(tinyFs!, `full-${kind}.stdout.log`);
      const chunk = Buffer.alloc(8192, 0x61);
      backend.write(id, 0, chunk);
      expect(backend.info(id, 0).spill).toBe('active');
      for (let i = 0; i < 16; i++) expect(() => backend.write(id, 0, chunk)).not.toThrow();
      expect(backend.info(id, 0)).toEqual({ total: 17 * 8192, retained: 16, truncated: true, spill: 'unavailable' });
      expect(fs.existsSync(file)).toBe(false);
      backend.finish(id);
      expect(backend.info(id, 0).spill).toBe('unavailable');
      backend.free(id);
    });
  });

  describe('ring', () => {
    it('stores chunks at absolute offsets and holds back an incomplete tail per stream', () => {
      const id = backend.create({ ring: true });
      backend.write(id, 0, b(0x61, 0xe2));
      backend.write(id, 1, t('!'));
      backend.write(id, 0, b(0x82));
      expect(backend.ringState(id).total).toBe(2);
      backend.write(id, 0, b(0xac, 0x62));
      backend.ringAppend(id, 'log', b(0x78, 0xe2), false);
      const read = backend.ringObserve(id, 0, 100);
      expect(segments(read)).toEqual([
        ['stdout', false, 'a'],
        ['stderr', false, '!'],
        ['stdout', false, t('€b').toString('latin1')],
        ['log', false, 'x\xe2'],
      ]);
      expect(read).toMatchObject({ from: 0, to: 8, lossy: false, total: 8, earliest: 0, settled: false });
      backend.free(id);
    });

    it('puts a gap with nothing to store on the next chunk of its kind only', () => {
      const id = backend.create({ ring: true });
      backend.ringAppend(id, 'stdout', b(), true);
      backend.ringAppend(id, 'stderr', t('e'), false);
      backend.ringAppend(id, 'stdout', b(0xc3), false);
      backend.ringAppend(id, 'stdout', b(0xa9), false);
      backend.ringAppend(id, 'log', b(), true);
      backend.ringAppend(id, 'log', t('L'), false);
      backend.ringAppend(id, 'log', t('M'), true);
      expect(segments(backend.ringObserve(id, 0, 100))).toEqual([
        ['stderr', false, 'e'],
        ['stdout', true, '\xc3\xa9'],
        ['log', true, 'L'],
        ['log', true, 'M'],
      ]);
      // A segment carries the gap only from its chunk's first byte.
      expect(segments(backend.ringObserve(id, 2, 100))[0]).toEqual(['stdout', false, '\xa9']);
      backend.free(id);
    });

    it('evicts head chunks, then trims a lone chunk to its last limit bytes past a cut character', () => {
      const id = backend.create({ ring: { liveLimit: 4, settledLimit: 2 } });
      backend.ringAppend(id, 'stdout', t('ab'), false);
      backend.ringAppend(id, 'stdout', t('cd'), false);
      backend.ringAppend(id, 'stdout', t('e'), false);
      expect(backend.ringState(id)).toMatchObject({ total: 5, earliest: 2, retained: 3 });
      backend.ringAppend(id, 'log', t('12€'), false);
      expect(backend.ringState(id)).toMatchObject({ total: 10, earliest: 6, retained: 4 });
      backend.ringAppend(id, 'log', t('€€'), true); // keeps AC E2 82 AC, skips 1
      expect(backend.ringState(id)).toMatchObject({ total: 16, earliest: 13, retained: 3 });
      const read = backend.ringObserve(id, 0, 100);
      expect(segments(read)).toEqual([['log', true, EURO.toString('latin1')]]);
      expect(read).toMatchObject({ from: 13, to: 16, lossy: true });
      backend.ringAppend(id, 'log', b(0x80, 0x80, 0x80, 0x80, 0x80), false); // the skip stops after three
      expect(backend.ringState(id)).toMatchObject({ total: 21, earliest: 20, retained: 1 });
      backend.free(id);
      const tiny = backend.create({ ring: { liveLimit: 2 } });
      backend.ringAppend(tiny, 'log', t('x€'), false); // keeps 82 AC: nothing left after the skip
      expect(backend.ringState(tiny)).toMatchObject({ total: 4, earliest: 4, retained: 0 });
      expect(backend.ringObserve(tiny, 0, 10)).toMatchObject({ segments: [], from: 4, to: 4, lossy: true });
      backend.free(tiny);
    });

    it('settles at finish: carries flushed stdout first, idempotent, later appends accepted', () => {
      const id = backend.create({ ring: true });
      backend.write(id, 1, b(0xe2, 0x82));
      backend.write(id, 0, b(0xc3));
      backend.ringAppend(id, 'stdout', b(), true);
      backend.finish(id);
      backend.ringSettle(id);
      expect(segments(backend.ringObserve(id, 0, 100))).toEqual([
        ['stdout', true, '\xc3'],
        ['stderr', false, '\xe2\x82'],
      ]);
      backend.ringAppend(id, 'log', t('late'), false);
      expect(backend.ringState(id)).toEqual({
        total: 7,
        earliest: 0,
        consumer: 0,
        settled: true,
        terminalRead: false,
        retained: 7,
      });
      backend.free(id);
    });

    it('reads whole chunks, cuts the one that does not fit, and takes nothing after a cut', () => {
      const id = backend.create({ ring: true });
      backend.ringAppend(id, 'stdout', t('ab'), false);
      backend.ringAppend(id, 'log', t('c€'), true);
      backend.ringAppend(id, 'stdout', t('d'), false);
      const read = backend.ringObserve(id, 0, 4);
      expect(segments(read)).toEqual([
        ['stdout', false, 'ab'],
        ['log', true, 'c'],
      ]);
      expect(read).toMatchObject({ from: 0, to: 3, lossy: false, total: 7 });
      expect(segments(backend.ringObserve(id, 3, 1))).toEqual([['log', false, EURO.toString('latin1')]]);
      expect(backend.ringObserve(id, 3, 4).to).toBe(7);
      expect(backend.ringObserve(id, 0, 0)).toMatchObject({ segments: [], from: 0, to: 0 });
      expect(backend.ringObserve(id, 50, 10)).toMatchObject({ segments: [], from: 7, to: 7, lossy: false });
      backend.free(id);
    });

    it('cuts a later chunk at the remaining room, so a read can pass max by the rest of one character', () => {
      // The boundary cut moves forward when not one character of that chunk fits the room left, even after
      // whole chunks were taken: max 3 after "ab" leaves room 1, and the emoji is taken whole.
      const id = backend.create({ ring: true });
      backend.ringAppend(id, 'stdout', t('ab'), false);
      backend.ringAppend(id, 'stderr', t('😀z'), false);
      const read = backend.ringRead(id, 3);
      expect(segments(read)).toEqual([
        ['stdout', false, 'ab'],
        ['stderr', false, GRIN.toString('latin1')],
      ]);
      expect(read).toMatchObject({ from: 0, to: 6 });
      backend.free(id);
    });

    it('moves the consumer cursor; the read reaching the end of a settled ring is terminal', () => {
      const id = backend.create({ ring: { liveLimit: 100, settledLimit: 4 } });
      backend.write(id, 0, t('0123456789'));
      expect(segments(backend.ringRead(id, 3))).toEqual([['stdout', false, '012']]);
      expect(backend.ringObserve(id, 0, 100).to).toBe(10);
      expect(backend.ringState(id)).toMatchObject({ consumer: 3, terminalRead: false, retained: 10 });
      backend.finish(id);
      backend.ringRead(id, 5);
      expect(backend.ringState(id)).toMatchObject({ consumer: 8, terminalRead: false, retained: 10 });
      expect(backend.ringRead(id, 5)).toMatchObject({ from: 8, to: 10, settled: true });
      expect(backend.ringState(id)).toEqual({
        total: 10,
        earliest: 6,
        consumer: 10,
        settled: true,
        terminalRead: true,
        retained: 4,
      });
      expect(backend.ringObserve(id, 0, 100)).toMatchObject({ from: 6, lossy: true });
      backend.free(id);
    });

    it('defaults to 262144 live and 16384 settled bytes', () => {
      const id = backend.create({ ring: {} });
      backend.write(id, 0, Buffer.alloc(300000, 0x61));
      expect(backend.ringState(id)).toMatchObject({ retained: 262144, earliest: 300000 - 262144 });
      const read = backend.ringRead(id, 100);
      expect(read).toMatchObject({ lossy: true, from: 300000 - 262144 });
      backend.finish(id);
      backend.ringRead(id, 1 << 30);
      expect(backend.ringState(id)).toMatchObject({ retained: 16384, terminalRead: true });
      backend.free(id);
    });

    it('reads into a caller buffer, leaving a character that does not fit', () => {
      const id = backend.create({ ring: true });
      backend.ringAppend(id, 'stdout', t('ab'), false);
      backend.ringAppend(id, 'stderr', t('c😀'), true);
      const buffer = Buffer.alloc(4, 0xff);
      const first = backend.ringReadInto(id, buffer);
      expect(buffer.subarray(0, first.bytes)).toEqual(t('abc'));
      expect(first).toEqual({
        bytes: 3,
        segments: [
          { kind: 'stdout', gap: false, length: 2 },
          { kind: 'stderr', gap: true, length: 1 },
        ],
        from: 0,
        to: 3,
        lossy: false,
        total: 7,
        earliest: 0,
        settled: false,
      });
      const small = Buffer.alloc(3);
      expect(thrown(() => backend.ringReadInto(id, small))).toEqual({
        message: 'buffer of 3 bytes cannot hold the next character (4 bytes)',
        code: 'SHELLRING_BUFFER_TOO_SMALL',
      });
      expect(backend.ringState(id).consumer).toBe(3);
      expect(backend.ringReadInto(id, Buffer.alloc(0))).toMatchObject({ bytes: 0, segments: [], to: 3 });
      const second = backend.ringReadInto(id, buffer);
      expect(buffer.subarray(0, second.bytes)).toEqual(GRIN);
      expect(second).toMatchObject({ from: 3, to: 7, segments: [{ kind: 'stderr', gap: false, length: 4 }] });
      backend.free(id);
    });

    it('has no ring unless asked, and feeds writes and log lines into the ring when it has one', () => {
      const plain = backend.create();
      expect(() => backend.ringState(plain)).toThrowError(`capture ${plain} has no ring`);
      backend.free(plain);
      const id = backend.create({ ring: true });
      backend.write(id, 0, t('out'));
      backend.write(id, 1, EURO.subarray(0, 1));
      backend.ringAppend(id, 'log', t('log'), true);
      backend.finish(id);
      const read = backend.ringRead(id, 100);
      expect(segments(read)).toEqual([
        ['stdout', false, 'out'],
        ['log', true, 'log'],
        ['stderr', false, '\xe2'],
      ]);
      expect(read).toMatchObject({ from: 0, to: 7, lossy: false, total: 7, earliest: 0, settled: true });
      expect(backend.ringState(id)).toEqual({ total: 7, earliest: 0, consumer: 7, settled: true, terminalRead: true, retained: 7 });
      backend.free(id);
    });

    it('reads output and log lines into a caller buffer', () => {
      const id = backend.create({ ring: true });
      backend.write(id, 0, t('hello'));
      backend.ringAppend(id, 'log', t('!'), false);
      const buffer = Buffer.alloc(16);
      const read = backend.ringReadInto(id, buffer);
      expect(buffer.subarray(0, read.bytes)).toEqual(t('hello!'));
      expect(read.segments).toEqual([
        { kind: 'stdout', gap: false, length: 5 },
        { kind: 'log', gap: false, length: 1 },
      ]);
      expect(read).toMatchObject({ from: 0, to: 6, total: 6, earliest: 0, settled: false, lossy: false });
      backend.free(id);
    });

    it('copies the caller bytes once and hands out copies', () => {
      const id = backend.create({ ring: true });
      const scratch = Buffer.from('abcd');
      backend.write(id, 0, scratch);
      backend.ringAppend(id, 'log', scratch, false);
      scratch.fill(0x7a);
      expect(backend.tail(id, 0)).toEqual(t('abcd'));
      const read = backend.ringObserve(id, 0, 100);
      expect(Buffer.concat(read.segments.map((s) => s.data))).toEqual(t('abcdabcd'));
      read.segments[0]!.data.fill(0);
      backend.tail(id, 0).fill(0);
      expect(backend.ringObserve(id, 0, 100).segments[0]!.data).toEqual(t('abcd'));
      expect(backend.tail(id, 0)).toEqual(t('abcd'));
      backend.free(id);
    });
  });
});
