// A truncated stream's kept tail starts at a line boundary when a newline lies in its first 4 KiB, in both capture
// backends, in what an observer (the console) reads, and in a real foreground result.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { referenceBackend } from './reference/index.js';
import { nativeBackend } from '../../src/capture/native.js';
import type { CaptureBackend } from '../../src/capture/types.js';
import { bash, text } from '../helpers/calls.js';
import { runtimes } from '../helpers/runtimes.js';

/** `seq 1 20000`: 108894 bytes; a 64000-byte tail's raw start falls inside `9201`, at its `201`. */
const seq = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${from + i}\n`).join('');
const SEQ = seq(1, 20000);
const KEPT = seq(9202, 20000);

describe.each([
  ['native', nativeBackend],
  ['reference', referenceBackend],
] as [string, CaptureBackend][])('the %s tail', (_name, backend) => {
  it('starts after the first newline of its first 4 KiB, for the tail and for an observer', () => {
    const id = backend.create({ stdoutCap: 64_000 });
    try {
      // Written in uneven chunks so the tail wraps inside a line.
      const bytes = Buffer.from(SEQ);
      for (let at = 0; at < bytes.length; at += 7777) backend.write(id, 0, bytes.subarray(at, at + 7777));
      expect(backend.tail(id, 0).toString()).toBe(KEPT);
      const observed = backend.observe(id, 0, 0, 1 << 20);
      expect(observed.data.toString()).toBe(KEPT);
      expect(observed).toMatchObject({ from: SEQ.length - KEPT.length, lossy: true });
    } finally {
      backend.free(id);
    }
  });

  it('keeps the character rule when the first 4 KiB hold no newline, and never starts at a split character', () => {
    const id = backend.create({ stdoutCap: 5001 });
    try {
      backend.write(id, 0, Buffer.from(`${'€'.repeat(3000)}\nend\n`));
      const tail = backend.tail(id, 0).toString();
      expect(tail).toBe(`${'€'.repeat(1665)}\nend\n`);
    } finally {
      backend.free(id);
    }
  });
});

describe('a foreground result', () => {
  const open = runtimes();
  it('shows whole lines after the cut', async () => {
    const runtime = await open();
    const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-linestart-')));
    const result = await bash(runtime.session({ id: 'lines', cwd: work }), 'seq 1 20000');
    const body = text(result);
    expect(body.slice(0, 10)).toBe('9202\n9203\n');
    expect(body).toBe(`${KEPT}[output truncated; full output: ${(result.structuredContent as any).stdout.spillPath}]`);
  });
});
