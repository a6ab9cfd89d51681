// The napi-rs binding on the main thread: calls by id, error codes, the panic boundary, and spill files on disk.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nativeBackend as backend } from '../../src/capture/native.js';
import { loadBinding } from '../../src/native/loader.js';

/** The error a call throws, so its message and code can be checked exactly. */
function thrown(call: () => unknown): Error & { code?: unknown } {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    return error as Error & { code?: unknown };
  }
  throw new Error('expected the call to throw');
}

const spillDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shellring-binding-'));
afterAll(() => fs.rmSync(spillDir, { recursive: true, force: true }));

describe('native binding', () => {
  it('is the native backend and exports exactly the binding functions', () => {
    expect(backend.kind).toBe('native');
    expect(Object.keys(loadBinding()).sort()).toEqual(
      [
        'attachReader',
        'closeFd',
        'drain',
        'environVersion',
        'create',
        'finish',
        'free',
        'hostReadPaths',
        'info',
        'isDumpable',
        'lockSpillRoot',
        'netAnswer',
        'netAttach',
        'netDetach',
        'netLastRefusal',
        'netOnAsk',
        'netRefusals',
        'netSetPolicy',
        'observe',
        'panicForTest',
        'parseCommands',
        'pipe',
        'readProcText',
        'readersDone',
        'reclaimRootsInBackground',
        'relayNext',
        'relayRoute',
        'relayStart',
        'relayUnroute',
        'reclaimSpillRoots',
        'releaseLargeBlocks',
        'sendFds',
        'setNonDumpable',
        'socketpair',
        'ringAppend',
        'ringObserve',
        'ringRead',
        'ringReadInto',
        'ringSettle',
        'ringState',
        'tail',
        'tailText',
        'terminalSize',
        'write',
      ].sort(),
    );
  });

  it('turns a panic into an Error with code SHELLRING_PANIC and keeps working', () => {
    const binding = loadBinding();
    for (let i = 0; i < 3; i++) {
      const error = thrown(() => binding.panicForTest());
      expect(error.code).toBe('SHELLRING_PANIC');
      expect(error.message).toBe('shellring native code panicked: panicForTest was called');
    }
    const id = backend.create({ ring: true });
    backend.write(id, 0, Buffer.from('after the panic'));
    expect(backend.tail(id, 0).toString()).toBe('after the panic');
    expect(backend.ringRead(id, 100).segments.map((s) => s.data.toString())).toEqual(['after the panic']);
    backend.free(id);
  });

  it('gives a tail as the string Buffer.toString would, long ASCII ones as external strings', () => {
    const cases: [string, Buffer][] = [
      ['empty', Buffer.alloc(0)],
      ['short', Buffer.from('ok\n')],
      ['long ASCII', Buffer.from('line\n'.repeat(20_000))],
      ['long, one non-ASCII character', Buffer.concat([Buffer.from('x'.repeat(10_000)), Buffer.from('é')])],
      ['long, cut and invalid UTF-8', Buffer.concat([Buffer.from('€'.repeat(9_000)).subarray(1), Buffer.from([0xff, 0xc3, 0x28, 0xe2, 0x82])])],
    ];
    for (const [name, bytes] of cases) {
      const id = backend.create({ stdoutCap: 64_000 });
      backend.write(id, 0, bytes);
      const text = backend.tailText(id, 0);
      const decoded = backend.tail(id, 0).toString('utf8');
      backend.free(id);
      // Compared after the capture is gone: the string holds characters of its own.
      expect(text, name).toBe(decoded);
    }
  });

  it('names an unknown id clearly', () => {
    const never = 987_654_321;
    for (const call of [
      () => backend.info(never, 0),
      () => backend.write(never, 0, Buffer.from('x')),
      () => backend.ringRead(never, 10),
      () => backend.free(never),
    ]) {
      const error = thrown(call);
      expect(error.message).toBe(`unknown capture ${never}`);
      expect(error.code).toBe('SHELLRING_UNKNOWN_CAPTURE');
    }
    const id = backend.create();
    backend.free(id);
    expect(thrown(() => backend.tail(id, 0)).message).toBe(`unknown capture ${id}`);
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      const error = thrown(() => backend.finish(bad));
      expect(error.code).toBe('SHELLRING_UNKNOWN_CAPTURE');
      expect(error.message).toBe(`unknown capture ${bad}`);
    }
  });

  it('refuses bad arguments with a code', () => {
    const id = backend.create();
    const noRing = thrown(() => backend.ringState(id));
    expect([noRing.code, noRing.message]).toEqual(['SHELLRING_NO_RING', `capture ${id} has no ring`]);
    const stream = thrown(() => backend.write(id, 2 as 0, Buffer.from('x')));
    expect(stream.code).toBe('SHELLRING_INVALID_ARGUMENT');
    const max = thrown(() => backend.observe(id, 0, 0, -1));
    expect([max.code, max.message]).toEqual([
      'SHELLRING_INVALID_ARGUMENT',
      'invalid max: expected a non-negative integer, got -1',
    ]);
    const cap = thrown(() => backend.create({ stdoutCap: 1.5 }));
    expect(cap.code).toBe('SHELLRING_INVALID_ARGUMENT');
    const name = thrown(() => backend.create({ spillName: '../escape' }));
    expect(name.code).toBe('SHELLRING_INVALID_OPTIONS');
    backend.free(id);
  });

  it('reads a Uint8Array view in place and fills the caller buffer', () => {
    const id = backend.create({ stdoutCap: 8, ring: { liveLimit: 1024 } });
    const big = new Uint8Array(Buffer.from('xxhello world€yy'));
    backend.write(id, 0, big.subarray(2, big.length - 2));
    expect(backend.tail(id, 0).toString()).toBe('world€');
    expect(backend.info(id, 0)).toEqual({ total: 14, retained: 8, truncated: true, spill: 'unavailable' });
    expect(backend.observe(id, 0, 0, 100)).toEqual({
      data: Buffer.from('world€'),
      from: 6,
      next: 14,
      lossy: true,
    });
    backend.ringAppend(id, 'log', Buffer.from('[log]'), true);
    const buffer = Buffer.alloc(13);
    const read = backend.ringReadInto(id, buffer);
    expect(read).toEqual({
      bytes: 11,
      segments: [{ kind: 'stdout', gap: false, length: 11 }],
      from: 0,
      to: 11,
      lossy: false,
      total: 19,
      earliest: 0,
      settled: false,
    });
    expect(buffer.subarray(0, read.bytes).toString()).toBe('hello world');
    const tiny = thrown(() => backend.ringReadInto(id, Buffer.alloc(2)));
    expect([tiny.code, tiny.message]).toEqual([
      'SHELLRING_BUFFER_TOO_SMALL',
      'buffer of 2 bytes cannot hold the next character (3 bytes)',
    ]);
    const rest = backend.ringRead(id, 100);
    expect(rest.segments).toEqual([
      { kind: 'stdout', gap: false, data: Buffer.from('€') },
      { kind: 'log', gap: true, data: Buffer.from('[log]') },
    ]);
    expect(backend.ringState(id)).toEqual({
      total: 19,
      earliest: 0,
      consumer: 19,
      settled: false,
      terminalRead: false,
      retained: 19,
    });
    backend.ringSettle(id);
    backend.ringRead(id, 100);
    expect(backend.ringState(id).terminalRead).toBe(true);
    expect(backend.ringObserve(id, 0, 4).segments).toEqual([{ kind: 'stdout', gap: false, data: Buffer.from('hell') }]);
    backend.free(id);
  });

  it('spills the whole stream to a 0600 file that is complete after finish', () => {
    const id = backend.create({ stdoutCap: 4, spillDir, spillName: 'job', spillCap: 1 << 20 });
    backend.write(id, 0, Buffer.from('abc'));
    expect(backend.info(id, 0).spill).toBe('none');
    backend.write(id, 0, Buffer.from('defg'));
    const file = path.join(spillDir, 'job.stdout.log');
    expect(backend.info(id, 0)).toEqual({ total: 7, retained: 4, truncated: true, spill: 'active', spillPath: file });
    backend.write(id, 0, Buffer.from('h'));
    backend.finish(id);
    expect(backend.info(id, 0).spill).toBe('complete');
    expect(fs.readFileSync(file, 'utf8')).toBe('abcdefgh');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    backend.free(id);
    expect(fs.readFileSync(file, 'utf8')).toBe('abcdefgh');
  });

  it('takes options with undefined fields as defaults', () => {
    const id = backend.create({ stdoutCap: undefined, spillDir: undefined, ring: { liveLimit: undefined } });
    backend.write(id, 0, Buffer.alloc(64_000, 'a'));
    expect(backend.info(id, 0).truncated).toBe(false);
    backend.write(id, 0, Buffer.from('b'));
    expect(backend.info(id, 0)).toEqual({ total: 64_001, retained: 64_000, truncated: true, spill: 'unavailable' });
    expect(backend.ringState(id).retained).toBe(64_001);
    backend.free(id);
  });
});
