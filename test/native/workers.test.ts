// The addon shared by the main thread and three worker threads: workers write by id while the main thread reads
// (through the native backend, which wraps the same loaded addon).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { afterAll, expect, it } from 'vitest';
import { nativeBackend as reader } from '../../src/capture/native.js';
import { loadBinding, loadedFrom } from '../../src/native/loader.js';
import { errLine, outLine, sharedLine } from './lines.mjs';

const WORKERS = 3;
const LINES = 3000;

const spillDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shellring-workers-'));
afterAll(() => fs.rmSync(spillDir, { recursive: true, force: true }));

const expected = (line: (worker: number, i: number) => string, worker: number): string =>
  Array.from({ length: LINES }, (_, i) => line(worker, i)).join('');

it('workers write into captures by id while the main thread reads every byte', async () => {
  // Load on the main thread before any worker starts: the addon (and its registry) must outlive every worker.
  const binding = loadBinding();
  const bindingFile = loadedFrom();
  expect(bindingFile).toMatch(/\.node$/);

  const ringLimits = { liveLimit: 8 << 20, settledLimit: 1024 };
  const own = Array.from({ length: WORKERS }, () =>
    binding.create({ stdoutCap: 1 << 20, stderrCap: 1 << 20, ring: ringLimits }),
  );
  const shared = binding.create({ stdoutCap: 1024, spillDir, spillName: 'shared', ring: ringLimits });

  const workers = Array.from(
    { length: WORKERS },
    () => new Worker(new URL('./writer-worker.mjs', import.meta.url), { workerData: { bindingFile } }),
  );
  const finished = workers.map(
    (worker) =>
      new Promise<{ panicCode: unknown }>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      }),
  );
  let pending = WORKERS;
  for (const p of finished) p.then(() => pending--, () => pending--);
  workers.forEach((worker, w) => {
    worker.postMessage({ own: own[w], shared, worker: w, lines: LINES });
  });

  const got = own.map(() => ({ stdout: [] as Buffer[], stderr: [] as Buffer[], observed: [] as Buffer[], next: 0 }));
  const sharedRead: Buffer[] = [];
  const scratch = Buffer.alloc(4096);
  const readAll = () => {
    own.forEach((id, w) => {
      const read = reader.ringRead(id, 4096);
      expect(read.lossy).toBe(false);
      for (const s of read.segments) (s.kind === 'stdout' ? got[w].stdout : got[w].stderr).push(s.data);
      const seen = reader.observe(id, 0, got[w].next, 2048);
      expect(seen.lossy).toBe(false);
      expect(seen.from).toBe(got[w].next);
      got[w].observed.push(seen.data);
      got[w].next = seen.next;
      expect(binding.info(id, 0).total).toBeGreaterThanOrEqual(seen.next);
    });
    const into = reader.ringReadInto(shared, scratch);
    expect(into.lossy).toBe(false);
    sharedRead.push(Buffer.from(scratch.subarray(0, into.bytes)));
    return into;
  };

  // Reads that return bytes while writers are still running show the two sides really overlap.
  let readWhileWriting = 0;
  while (pending > 0) {
    readAll();
    readWhileWriting += sharedRead.at(-1)!.length;
    await yieldToLoop();
  }
  expect(readWhileWriting).toBeGreaterThan(0);
  const results = await Promise.all(finished);
  for (const { panicCode } of results) expect(panicCode).toBe('SHELLRING_PANIC');

  for (const id of [...own, shared]) binding.finish(id);
  for (;;) {
    const last = readAll();
    const states = [...own, shared].map((id) => reader.ringState(id));
    if (states.every((s) => s.terminalRead) && last.bytes === 0) break;
  }
  own.forEach((id, w) => {
    const total = binding.info(id, 0).total;
    while (got[w].next < total) {
      const seen = reader.observe(id, 0, got[w].next, 1 << 16);
      got[w].observed.push(seen.data);
      got[w].next = seen.next;
    }
  });

  own.forEach((id, w) => {
    const out = expected(outLine, w);
    const err = expected(errLine, w);
    expect(Buffer.concat(got[w].stdout).toString()).toBe(out);
    expect(Buffer.concat(got[w].stderr).toString()).toBe(err);
    expect(Buffer.concat(got[w].observed).toString()).toBe(out);
    expect(binding.tail(id, 0).toString()).toBe(out);
    expect(binding.info(id, 0)).toEqual({
      total: Buffer.byteLength(out),
      retained: Buffer.byteLength(out),
      truncated: false,
      spill: 'none',
    });
    expect(binding.info(id, 1).total).toBe(Buffer.byteLength(err));
  });

  // Every worker's lines arrive whole and in its own order; the spill file holds exactly what the ring gave out.
  const sharedText = Buffer.concat(sharedRead).toString();
  const lines = sharedText.split('\n').slice(0, -1);
  expect(lines).toHaveLength(WORKERS * LINES);
  for (let w = 0; w < WORKERS; w++) {
    const mine = lines.filter((l) => l.startsWith(`w${w} `)).map((l) => `${l}\n`);
    expect(mine.join('')).toBe(expected(sharedLine, w));
  }
  const info = binding.info(shared, 0);
  expect(info.spill).toBe('complete');
  expect(info.spillPath).toBe(path.join(spillDir, 'shared.stdout.log'));
  expect(fs.readFileSync(info.spillPath!, 'utf8')).toBe(sharedText);

  await Promise.all(workers.map((worker) => worker.terminate()));
  // The workers are gone; the addon and its registry are still here.
  for (const id of [...own, shared]) binding.free(id);
  expect(() => binding.info(shared, 0)).toThrow(`unknown capture ${shared}`);
  const after = binding.create();
  binding.write(after, 0, Buffer.from('still working'));
  expect(binding.tail(after, 0).toString()).toBe('still working');
  binding.free(after);
});
