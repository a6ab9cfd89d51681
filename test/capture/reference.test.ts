// Unit tests of the reference backend's parts (UTF-8 rules, tail, ring), one README rule (crates/core/README.md) per
// test. The backend as a whole is held to the native core's behaviour by conformance.test.ts and differential.test.ts.
import { describe, expect, it } from 'vitest';
import { Ring } from './reference/ring.js';
import { Tail } from './reference/tail.js';
import {
  boundaryCut,
  incompleteTailStart,
  isContinuation,
  sequenceLength,
  startSkip,
} from './reference/utf8.js';

const b = (...bytes: number[]): Buffer => Buffer.from(bytes);
const t = (text: string): Buffer => Buffer.from(text, 'utf8');
const EURO = t('€'); // E2 82 AC
const GRIN = t('😀'); // F0 9F 98 80

describe('UTF-8 rules', () => {
  it('recognizes continuation bytes', () => {
    expect(isContinuation(0x80)).toBe(true);
    expect(isContinuation(0xbf)).toBe(true);
    expect(isContinuation(0x7f)).toBe(false);
    expect(isContinuation(0xc0)).toBe(false);
  });

  it('derives the sequence length from a lead byte, lone bytes counting 1', () => {
    expect([0x41, 0xc3, 0xe2, 0xf0, 0x80, 0xbf, 0xf8, 0xff].map(sequenceLength)).toEqual([1, 2, 3, 4, 1, 1, 1, 1]);
  });

  it('finds the incomplete tail among the last three bytes only', () => {
    expect(incompleteTailStart(b())).toBe(0);
    expect(incompleteTailStart(t('a€'))).toBe(4);
    expect(incompleteTailStart(b(0x61, 0xe2))).toBe(1);
    expect(incompleteTailStart(b(0x61, 0xe2, 0x82))).toBe(1);
    expect(incompleteTailStart(b(0x61, 0xf0, 0x9f, 0x98))).toBe(1);
    expect(incompleteTailStart(b(0xf0, 0x80, 0x80, 0x80))).toBe(4);
    expect(incompleteTailStart(b(0x61, 0x80))).toBe(2);
    expect(incompleteTailStart(b(0x61, 0xf8))).toBe(2);
    // A 2-byte lead followed by its continuation is complete.
    expect(incompleteTailStart(b(0xc3, 0xa9))).toBe(2);
  });

  it('cuts back to the start of a character, forward only when none fits, three steps at most', () => {
    const s = t('a€b'); // 61 E2 82 AC 62
    expect([1, 2, 3, 4].map((max) => boundaryCut(s, max))).toEqual([1, 1, 1, 4]);
    expect(boundaryCut(t('😀z'), 1)).toBe(4);
    expect(boundaryCut(t('😀z'), 3)).toBe(4);
    expect(boundaryCut(t('€€'), 2)).toBe(3);
    expect(boundaryCut(b(0x61, 0x80, 0x80, 0x80, 0x80, 0x80, 0x62), 5)).toBe(2);
    expect(boundaryCut(b(0x80, 0x80, 0x80, 0x80, 0x80, 0x80), 1)).toBe(4);
    expect(boundaryCut(b(0x80, 0x80, 0x80), 1)).toBe(3);
  });

  it('skips at most three leading continuation bytes', () => {
    expect(startSkip(b())).toBe(0);
    expect(startSkip(b(0x82, 0xac, 0x78))).toBe(2);
    expect(startSkip(b(0x80, 0x80, 0x80, 0x80))).toBe(3);
    expect(startSkip(b(0x41, 0x80))).toBe(0);
  });
});

describe('tail', () => {
  it('keeps everything up to the cap, and exactly cap bytes are not dropped', () => {
    const tail = new Tail(4);
    tail.write(t('ab'));
    tail.write(t('cd'));
    expect(tail.window()).toEqual(t('abcd'));
    expect(tail.dropped()).toBe(false);
    tail.write(t('e'));
    expect(tail.dropped()).toBe(true);
    expect(tail.window()).toEqual(t('bcde'));
    expect(tail.total).toBe(5);
  });

  it('wraps around its buffer for many small writes', () => {
    const tail = new Tail(5);
    let all = '';
    for (let i = 0; i < 50; i++) {
      const piece = String.fromCharCode(97 + (i % 26)).repeat(1 + (i % 3));
      all += piece;
      tail.write(t(piece));
      expect(tail.window().toString()).toBe(all.slice(-5));
    }
    expect(tail.total).toBe(all.length);
  });

  it('takes only the last cap bytes of a chunk longer than the cap', () => {
    const tail = new Tail(4);
    tail.write(t('xy'));
    tail.write(t('0123456789'));
    expect(tail.window()).toEqual(t('6789'));
    expect(tail.total).toBe(12);
    expect(tail.windowStart()).toBe(8);
  });

  it('with cap 0 keeps nothing but counts every byte', () => {
    const tail = new Tail(0);
    tail.write(t('hello'));
    expect(tail.window()).toEqual(b());
    expect(tail.dropped()).toBe(true);
    expect(tail.windowStart()).toBe(5);
    expect(tail.observe(0, 10, false)).toEqual({ data: b(), from: 5, next: 5, lossy: true });
  });

  it('applies the start skip only once bytes were dropped', () => {
    const fresh = new Tail(8);
    fresh.write(b(0x80, 0x80, 0x61));
    expect(fresh.window()).toEqual(b(0x80, 0x80, 0x61));
    const tail = new Tail(4);
    tail.write(t('ab€')); // holds 62 E2 82 AC
    expect(tail.window()).toEqual(t('b€'));
    tail.write(t('y')); // holds E2 82 AC 79: starts at a lead
    expect(tail.window()).toEqual(t('€y'));
    tail.write(t('z')); // holds 82 AC 79 7A: skip 2
    expect(tail.window()).toEqual(t('yz'));
    expect(tail.windowStart()).toBe(tail.total - 2);
  });

  it('observes by absolute offset: lossy before the window, clamped to the total', () => {
    const tail = new Tail(8);
    tail.write(t('hello world'));
    expect(tail.observe(0, 100, false)).toEqual({ data: t('lo world'), from: 3, next: 11, lossy: true });
    expect(tail.observe(5, 100, false)).toEqual({ data: t(' world'), from: 5, next: 11, lossy: false });
    expect(tail.observe(99, 3, false)).toEqual({ data: b(), from: 11, next: 11, lossy: false });
    expect(tail.window()).toEqual(t('lo world'));
  });

  it('holds back an incomplete sequence until finished', () => {
    const tail = new Tail(16);
    tail.write(t('ab'));
    tail.write(EURO.subarray(0, 2));
    expect(tail.observe(0, 100, false)).toEqual({ data: t('ab'), from: 0, next: 2, lossy: false });
    expect(tail.observe(0, 100, true).data).toEqual(Buffer.concat([t('ab'), EURO.subarray(0, 2)]));
    tail.write(EURO.subarray(2));
    expect(tail.observe(2, 100, false).data).toEqual(EURO);
  });

  it('cuts an observe at a character boundary, moving forward when nothing fits', () => {
    const tail = new Tail(16);
    tail.write(t('a😀b'));
    expect(tail.observe(0, 3, false).data).toEqual(t('a'));
    expect(tail.observe(1, 1, false).data).toEqual(GRIN);
    expect(tail.observe(1, 5, false).data).toEqual(t('😀b'));
  });
});

describe('ring', () => {
  const texts = (ring: Ring, from: number, max: number) =>
    ring.slice(from, max).segments.map((s) => [s.kind, s.gap, s.data.toString('latin1')]);

  it('stores chunks at absolute offsets and holds back an incomplete tail per kind', () => {
    const ring = new Ring(1000, 100);
    ring.append('stdout', t('a'), false);
    ring.append('stdout', EURO.subarray(0, 1), false);
    ring.append('stderr', t('e'), false);
    ring.append('stdout', EURO.subarray(1), false);
    expect(ring.total).toBe(5);
    const read = ring.slice(0, 100);
    expect(read.segments.map((s) => [s.kind, s.data])).toEqual([
      ['stdout', t('a')],
      ['stderr', t('e')],
      ['stdout', EURO],
    ]);
  });

  it('stores log chunks as given, even incomplete', () => {
    const ring = new Ring(1000, 100);
    ring.append('log', EURO.subarray(0, 2), false);
    expect(ring.total).toBe(2);
    expect(ring.slice(0, 10).segments[0]!.data).toEqual(EURO.subarray(0, 2));
  });

  it('puts a gap with nothing to store on the next stored chunk of the same kind', () => {
    const ring = new Ring(1000, 100);
    ring.append('stdout', b(), true);
    ring.append('stderr', t('x'), false);
    ring.append('stdout', GRIN.subarray(0, 2), false);
    ring.append('stdout', GRIN.subarray(2), false);
    ring.append('log', b(), true);
    ring.append('log', t('L'), false);
    expect(texts(ring, 0, 100)).toEqual([
      ['stderr', false, 'x'],
      ['stdout', true, GRIN.toString('latin1')],
      ['log', true, 'L'],
    ]);
  });

  it('stores a long append in quarter-limit pieces cut at character starts, so a small append pushes out little', () => {
    const ring = new Ring(1000, 16);
    ring.append('stdout', Buffer.alloc(1000, 'a'), false);
    ring.append('stdout', t('bbbbbbbbbb'), false);
    // Whole chunks are evicted: one chunk of 1000 bytes, pushed out by 10, would leave 10.
    expect(ring.state()).toMatchObject({ total: 1010, earliest: 250, retained: 760 });
    const euros = new Ring(1000, 16);
    euros.append('stdout', t('€'.repeat(400)), false);
    for (const [, , text] of texts(euros, 0, 2000)) expect(Buffer.from(text, 'latin1').toString('utf8')).not.toContain('\ufffd');
    expect(euros.state().retained).toBeGreaterThanOrEqual(750);
  });

  it('evicts whole head chunks, then trims a single chunk to its last limit bytes with the start skip', () => {
    const ring = new Ring(4, 2);
    ring.append('stdout', t('ab'), false);
    ring.append('stdout', t('cd'), false);
    ring.append('stdout', t('e'), false);
    expect(ring.state()).toMatchObject({ total: 5, earliest: 2, retained: 3 });
    ring.append('stderr', t('x€'), false); // 4 bytes alone: the head chunks go
    expect(ring.state()).toMatchObject({ total: 9, earliest: 5, retained: 4 });
    ring.append('log', t('12€'), false); // one chunk of 5 > 4: keep "2€"
    expect(ring.state()).toMatchObject({ total: 14, earliest: 10, retained: 4 });
    ring.append('log', t('€€'), false); // 6 > 4 alone: last 4 are 82 AC E2 82 AC minus... skip 1
    expect(texts(ring, 0, 100)).toEqual([['log', false, t('€').toString('latin1')]]);
    expect(ring.state()).toMatchObject({ total: 20, earliest: 17, retained: 3 });
  });

  it('trims an oversized chunk that completes a carry to the right bytes', () => {
    const ring = new Ring(3, 3);
    ring.append('stdout', EURO.subarray(0, 1), false);
    ring.append('stdout', Buffer.concat([EURO.subarray(1), t('ab')]), false); // E2 82 AC a b: keeps AC a b, skips 1
    expect(texts(ring, 0, 100)).toEqual([['stdout', false, 'ab']]);
    expect(ring.state()).toMatchObject({ total: 5, earliest: 3, retained: 2 });
  });

  it('drops a chunk that the start skip empties, so the ring reads as empty at its total', () => {
    const ring = new Ring(2, 2);
    ring.append('log', t('x'), false);
    ring.append('log', t('y€'), true); // keeps 82 AC: nothing after the skip
    expect(ring.state()).toMatchObject({ total: 5, earliest: 5, retained: 0 });
    expect(ring.slice(0, 10)).toMatchObject({ segments: [], from: 5, to: 5, lossy: true });
  });

  it('reads into a bounded buffer without passing it, failing when not one character fits', () => {
    const ring = new Ring(100, 10);
    ring.append('stdout', t('a'), false);
    ring.append('stdout', GRIN, false);
    expect(ring.readInto(3)).toMatchObject({ bytes: 1, to: 1 });
    expect(() => ring.readInto(3)).toThrowError('buffer of 3 bytes cannot hold the next character (4 bytes)');
    expect(ring.consumer).toBe(1);
    expect(ring.readInto(0)).toMatchObject({ bytes: 0, to: 1 });
    expect(ring.readInto(4)).toMatchObject({ bytes: 4, to: 5 });
  });

  it('settles by flushing carries, stdout first, and still accepts appends', () => {
    const ring = new Ring(1000, 100);
    ring.append('stderr', EURO.subarray(0, 1), false);
    ring.append('stdout', EURO.subarray(0, 2), true);
    ring.settle();
    ring.settle();
    expect(texts(ring, 0, 100)).toEqual([
      ['stdout', true, EURO.subarray(0, 2).toString('latin1')],
      ['stderr', false, EURO.subarray(0, 1).toString('latin1')],
    ]);
    ring.append('log', t('late'), false);
    expect(ring.state()).toMatchObject({ total: 7, settled: true });
  });

  it('reads whole chunks, cuts the one that does not fit, and stops after a cut', () => {
    const ring = new Ring(1000, 100);
    ring.append('stdout', t('ab'), false);
    ring.append('log', t('c€'), true);
    ring.append('stdout', t('d'), false);
    expect(texts(ring, 0, 4)).toEqual([
      ['stdout', false, 'ab'],
      ['log', true, 'c'],
    ]);
    const read = ring.slice(0, 4);
    expect([read.from, read.to, read.lossy]).toEqual([0, 3, false]);
    // Starting inside a chunk: no gap on that segment.
    expect(texts(ring, 3, 100)).toEqual([
      ['log', false, EURO.toString('latin1')],
      ['stdout', false, 'd'],
    ]);
    // Not one character fits: the cut moves forward.
    expect(texts(ring, 3, 1)).toEqual([['log', false, EURO.toString('latin1')]]);
  });

  it('reports lossy reads from before the earliest byte and clamps to the total', () => {
    const ring = new Ring(3, 3);
    ring.append('stdout', t('abc'), false);
    ring.append('stdout', t('def'), false);
    const read = ring.slice(1, 100);
    expect([read.from, read.to, read.lossy]).toEqual([3, 6, true]);
    const past = ring.slice(50, 100);
    expect([past.from, past.to, past.lossy, past.segments.length]).toEqual([6, 6, false, 0]);
  });

  it('moves the consumer cursor, and the read reaching the end of a settled ring switches to the settled limit', () => {
    const ring = new Ring(100, 4);
    ring.append('stdout', t('0123456789'), false);
    expect(ring.read(3).to).toBe(3);
    expect(ring.slice(0, 100).to).toBe(10);
    expect(ring.state()).toMatchObject({ consumer: 3, terminalRead: false, retained: 10 });
    ring.settle();
    ring.read(5);
    expect(ring.state()).toMatchObject({ consumer: 8, terminalRead: false, retained: 10 });
    ring.read(5);
    expect(ring.state()).toMatchObject({ consumer: 10, terminalRead: true, retained: 4, earliest: 6 });
  });
});
