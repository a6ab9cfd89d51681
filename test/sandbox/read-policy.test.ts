// The read policy's host paths: denied entries under every home and with a * in the last component, the toolchains
// a session view shows from PATH, and the config's validation of both lists.
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxConfigSchema } from '../../src/sandbox/config.js';
import { DEFAULT_READ_DENY, hostReadPaths } from '../../src/sandbox/read-policy.js';

describe('read policy paths', () => {
  it('expands ~/ under every home and * within the last component only, and names the directories it listed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shellring-read-policy-'));
    try {
      mkdirSync(join(dir, 'ssh'));
      for (const name of ['ssh_host_rsa_key', 'ssh_host_dsa_key', 'ssh_host_rsa_key.pub', 'moduli']) writeFileSync(join(dir, 'ssh', name), '');
      const found = await hostReadPaths([`${dir}/ssh/*_key`, '~/.aws', '/etc/shadow', `${dir}/missing/*`, '/etc/./shadow']);
      expect(found.homes).toEqual(expect.arrayContaining(['/root', homedir()]));
      expect(found.denied).toEqual([
        join(dir, 'ssh', 'ssh_host_dsa_key'),
        join(dir, 'ssh', 'ssh_host_rsa_key'),
        ...found.homes.map((home) => join(home, '.aws')),
        '/etc/shadow',
      ]);
      expect(found.consulted).toEqual(expect.arrayContaining(['/home', '/etc', join(dir, 'ssh'), join(dir, 'missing')]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('shows the toolchain directory of each PATH entry under a home, ~/.rustup with ~/.cargo, ~/.local/bin alone', async () => {
    const home = homedir();
    const path = ['/usr/bin', '.cargo/bin', '.nvm/versions/node/v20/bin', '.local/bin', 'bin', '../x/bin', ''].map((entry) => (entry.startsWith('/') ? entry : join(home, entry)));
    const found = await hostReadPaths([], [...path, '/opt/x/bin', `${home}/`].join(':'));
    expect(found.toolchains).toEqual(['.cargo', '.local/bin', '.nvm', '.rustup', 'bin'].map((sub) => join(home, sub)).sort());
    expect((await hostReadPaths([], '')).toolchains).toEqual([]);
  });

  it('defaults to the session view and the credential stores, and refuses relative or mid-path * entries', () => {
    const parsed = sandboxConfigSchema.parse({});
    expect(parsed.read).toBe('session');
    expect(parsed.readDeny).toEqual([...DEFAULT_READ_DENY]);
    expect(parsed.readAllow).toEqual([]);
    expect(sandboxConfigSchema.safeParse({ readAllow: ['rel/path'] }).success).toBe(false);
    expect(sandboxConfigSchema.safeParse({ readDeny: ['/etc/*/key'] }).success).toBe(false);
    expect(sandboxConfigSchema.safeParse({ readDeny: ['.ssh'] }).success).toBe(false);
    expect(sandboxConfigSchema.safeParse({ read: 'all' }).success).toBe(false);
  });
});
