// The read policy's path expansion: denied entries under every home and with a * in the last component, the
// toolchains a session view shows from PATH, and the config's validation of both lists.
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxConfigSchema } from '../../src/sandbox/config.js';
import { DEFAULT_READ_DENY, expandDenied, toolchains } from '../../src/sandbox/read-policy.js';

describe('read policy paths', () => {
  it('expands ~/ under every home and * within the last component only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shellring-read-policy-'));
    try {
      mkdirSync(join(dir, 'ssh'));
      for (const name of ['ssh_host_rsa_key', 'ssh_host_rsa_key.pub', 'moduli']) writeFileSync(join(dir, 'ssh', name), '');
      const denied = await expandDenied([`${dir}/ssh/*_key`, '~/.aws', '/etc/shadow'], ['/root', '/home/a']);
      expect(denied).toEqual([join(dir, 'ssh', 'ssh_host_rsa_key'), '/root/.aws', '/home/a/.aws', '/etc/shadow']);
      expect(await expandDenied([`${dir}/missing/*`], [])).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('shows the toolchain directory of each PATH entry under a home, ~/.rustup with ~/.cargo, ~/.local/bin alone', () => {
    const path = '/usr/bin:/root/.cargo/bin:/home/a/.nvm/versions/node/v20/bin:/home/a/.local/bin:/home/ab/bin:/opt/x/bin';
    expect(toolchains(path, ['/root', '/home/a', '/home/ab'])).toEqual([
      '/root/.cargo',
      '/root/.rustup',
      '/home/a/.nvm',
      '/home/a/.local/bin',
      '/home/ab/bin',
    ]);
    expect(toolchains(undefined, ['/root'])).toEqual([]);
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
