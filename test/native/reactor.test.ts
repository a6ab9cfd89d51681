// The native reactor: an idle pipe costs no thread and no wakeup, and a drain's completion arrives as a promise.
import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, writeSync } from 'node:fs';
import { loadBinding } from '../../src/native/loader.js';

const binding = loadBinding();
const threads = () => readdirSync('/proc/self/task').length;
/** The reactor's threads (named shellring-io-<n>), by thread id. */
const reactorThreads = () => readdirSync('/proc/self/task').filter((tid) => readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').startsWith('shellring-io-'));
/** How many times these threads went to sleep and were woken: their voluntary context switches. */
const wakeups = (tids: string[]) =>
  tids.reduce((sum, tid) => sum + Number(/^voluntary_ctxt_switches:\s+(\d+)$/m.exec(readFileSync(`/proc/self/task/${tid}/status`, 'utf8'))![1]), 0);
const open: { id: number; write: number }[] = [];

afterAll(() => {
  for (const { id, write } of open) {
    binding.closeFd(write);
    binding.free(id);
  }
});

describe('the native reactor', () => {
  it('drains 1000 idle pipes with a fixed few threads that sleep while they idle', async () => {
    // Start the reactor first: its threads are made once per process.
    const warm = binding.create();
    const [r, w] = binding.pipe();
    binding.attachReader(warm, 0, r);
    binding.closeFd(w);
    await binding.drain(warm, 1_000);
    binding.free(warm);

    const before = threads();
    for (let i = 0; i < 1000; i++) {
      const id = binding.create();
      const [read, write] = binding.pipe();
      binding.attachReader(id, i % 2, read);
      open.push({ id, write });
    }
    expect(threads() - before).toBeLessThanOrEqual(0);
    // Each reactor thread has taken its attaches once a drain sent after them (one per thread) has completed.
    const reactor = reactorThreads();
    expect(reactor.length).toBeGreaterThan(0);
    await Promise.all(
      reactor.map(() => {
        const id = binding.create();
        const [read, write] = binding.pipe();
        binding.attachReader(id, 0, read);
        binding.closeFd(write);
        return binding.drain(id, 10_000).then(() => binding.free(id));
      }),
    );
    // Idle, the reactor threads sleep in the kernel: they wake for nothing in 2 s, however busy the host is (a thread
    // that polled, even every 100 ms, would wake at least 20 times).
    const woken = wakeups(reactor);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(wakeups(reactor) - woken).toBeLessThanOrEqual(reactor.length);
    for (const { id } of open) expect(binding.readersDone(id)).toBe(false);

    // The pipes still work: a byte written now arrives.
    const { id, write } = open.shift()!;
    writeSync(write, 'late\n');
    binding.closeFd(write);
    await binding.drain(id, 5_000);
    expect(binding.readersDone(id)).toBe(true);
    expect(binding.tail(id, 0).toString()).toBe('late\n');
    binding.free(id);
  });

  it('resolves a drain at its deadline while a writer keeps the pipe open, with every byte it held', async () => {
    const id = binding.create({ stdoutCap: 1 << 20 });
    const [read, write] = binding.pipe();
    binding.attachReader(id, 0, read);
    const chunk = Buffer.alloc(300_000, 'y');
    writeSync(write, chunk);
    const started = Date.now();
    await binding.drain(id, 300);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(binding.info(id, 0).total).toBe(chunk.length);
    expect(binding.readersDone(id)).toBe(true);
    binding.closeFd(write);
    binding.free(id);
  });

  it('resolves a drain without a deadline at end-of-file, and one with a deadline asked later settles both', async () => {
    const id = binding.create();
    const [read, write] = binding.pipe();
    binding.attachReader(id, 0, read);
    let ended = false;
    const eof = binding.drain(id, Infinity).then(() => (ended = true));
    writeSync(write, 'before\n');
    // Nothing must end it while the writer is open: 2 s for a wrong end to show.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(ended).toBe(false);
    binding.closeFd(write);
    await eof;
    expect(binding.tail(id, 0).toString()).toBe('before\n');
    binding.free(id);

    // A writer that never closes: the later, bounded drain ends the capture, and the unbounded one with it.
    const held = binding.create();
    const [r, w] = binding.pipe();
    binding.attachReader(held, 0, r);
    const unbounded = binding.drain(held, Infinity);
    writeSync(w, 'held\n');
    await Promise.all([binding.drain(held, 100), unbounded]);
    expect(binding.tail(held, 0).toString()).toBe('held\n');
    binding.closeFd(w);
    binding.free(held);
  });

  it('rejects a drain of an unknown capture with a clear error', () => {
    expect(() => binding.drain(987654321, 10)).toThrow('unknown capture 987654321');
  });
});
