// /proc reads in the supervisor workers: the same text readFileSync gives, errors as it throws them, and no buffer
// left behind per read; a waiting look reads no descriptor of a command that is busy or asleep, and walks no further
// than the first busy process.
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readProcText } from '../../src/executor/proc-text.js';
import { findWaiting, type ProcFiles } from '../../src/executor/waiting.js';

const dir = mkdtempSync(join(tmpdir(), 'shellring-proc-text-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readProcText', () => {
  it('reads what readFileSync reads, small /proc files and files past its first buffer', () => {
    expect(readProcText(`/proc/${process.pid}/cmdline`)).toBe(readFileSync(`/proc/${process.pid}/cmdline`, 'latin1'));
    const big = Buffer.alloc(100_000);
    for (let i = 0; i < big.length; i += 1) big[i] = (i * 7) % 256;
    writeFileSync(join(dir, 'big'), big);
    expect(readProcText(join(dir, 'big'))).toBe(big.toString('latin1'));
    expect(readProcText(`/proc/${process.pid}/comm`)).toBe(readFileSync(`/proc/${process.pid}/comm`, 'latin1'));
  });

  it('throws ENOENT for a process that is not there', () => {
    expect(() => readProcText('/proc/999999999/stat')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });

  it('leaves no buffer behind per read', () => {
    readProcText(`/proc/${process.pid}/stat`);
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < 5_000; i += 1) readProcText(`/proc/${process.pid}/stat`);
    // readFileSync allocates 64 KiB per /proc file, 300 MiB over these reads, left for the collector.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1 << 20);
  });
});

describe('a waiting look', () => {
  /** A snapshot of one process (pid 20) under a runner (pid 10), counting what the look reads. */
  function snapshot(state: string, syscall: string) {
    const reads: string[] = [];
    const files = new Map<string, string>([
      ['/proc/20/stat', `20 (prog) ${state} 10 20 20 0`],
      ['/proc/20/syscall', syscall],
      ['/proc/20/fd', '0 1 2'],
      ['/proc/20/fd/0', '/dev/pts/3'],
      ['/proc/20/fd/1', 'pipe:[1]'],
      ['/proc/20/fd/2', 'pipe:[2]'],
    ]);
    const get = (path: string) => {
      reads.push(path);
      return files.get(path);
    };
    const proc: ProcFiles = { read: get, list: (path) => get(path)?.split(' '), link: get };
    return { proc, reads };
  }

  it('reads no descriptor of a process that runs or sleeps in anything but a read, poll or accept', () => {
    for (const [state, syscall] of [
      ['R', 'running'],
      ['S', '230 0x1 0x0 0x7ffd 0x0 0x0 0x0 0x7ffd 0x7f00'],
    ] as const) {
      const { proc, reads } = snapshot(state, syscall);
      expect(findWaiting(10, [10, 20], 'x64', proc)).toBeUndefined();
      expect(reads.filter((path) => path.includes('/fd'))).toEqual([]);
    }
  });

  it('reads the descriptors of a process asleep in a read, and finds it reading a terminal', () => {
    const { proc, reads } = snapshot('S', '0 0x0 0x7ffd 0x1 0x0 0x0 0x0 0x7ffd 0x7f00');
    expect(findWaiting(10, [10, 20], 'x64', proc)).toEqual({ kind: 'input', pid: 20, name: 'prog', source: 'terminal' });
    expect(reads).toContain('/proc/20/fd/0');
  });

  it('stops walking the tree at the first busy process', () => {
    const { proc } = snapshot('R', 'running');
    const pulled: number[] = [];
    function* pids() {
      for (const pid of [20, 30, 40]) {
        pulled.push(pid);
        yield pid;
      }
    }
    expect(findWaiting(10, pids(), 'x64', proc)).toBeUndefined();
    expect(pulled).toEqual([20]);
  });
});
