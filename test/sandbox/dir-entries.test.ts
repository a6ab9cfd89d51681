// The read policy's directory listings: kept while a directory is unchanged, read again the moment it changes, so a
// key file or home made between two calls is denied at the second.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dirEntries } from '../../src/sandbox/dir-entries.js';

describe('dirEntries', () => {
  it('sees an entry made after a listing, whether the directory was settled or had just changed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shellring-dir-entries-'));
    try {
      writeFileSync(join(dir, 'a'), '');
      // Just changed: listed again at each call.
      expect([...(await dirEntries(dir))].sort()).toEqual(['a']);
      writeFileSync(join(dir, 'b_key'), '');
      expect([...(await dirEntries(dir))].sort()).toEqual(['a', 'b_key']);
      // Settled (no change for longer than the kernel's timestamps could hide one): the listing is kept, and the
      // next change still shows at once.
      await sleep(1200);
      expect([...(await dirEntries(dir))].sort()).toEqual(['a', 'b_key']);
      writeFileSync(join(dir, 'c_key'), '');
      expect([...(await dirEntries(dir))].sort()).toEqual(['a', 'b_key', 'c_key']);
      rmSync(join(dir, 'a'));
      expect([...(await dirEntries(dir))].sort()).toEqual(['b_key', 'c_key']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects for a directory that is absent', async () => {
    await expect(dirEntries(join(tmpdir(), 'shellring-dir-entries-absent', 'x'))).rejects.toThrow(/ENOENT/);
  });
});
