// The host's part of the read policy is derived where the files are, by one owner (crates/hostpaths): the binding
// runs it for local commands (kept between calls while nothing it listed changed, src/sandbox/read-policy.ts), and a
// remote host's runner for its own (crates/runner/src/stdio/policy.rs). Held here: the runner completes a plan with
// what the binding derives for the same entries, PATH and home, field by field, over files that reach every kind of
// entry (~/ under each home, * in the last component, plain paths), the toolchains and the resolver.
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_READ_DENY, hostReadPaths } from '../../src/sandbox/read-policy.js';
import { encode } from '../../src/executor/wire/request.js';
import { UNCONFINED } from '../../src/executor/wire/plan.js';
import { runnerPath } from '../../src/native/assets.js';

const dir = mkdtempSync(join(tmpdir(), 'shellring-read-policy-hosts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A home with a key store, toolchains on PATH and files a * entry matches. */
function fixture(): { home: string; path: string; entries: string[] } {
  const home = join(dir, 'home');
  for (const sub of ['.ssh', '.cargo/bin', '.local/bin', '.nvm/versions/node/v20/bin', 'keys/ring']) mkdirSync(join(home, sub), { recursive: true });
  for (const name of ['.secret-one', '.secret-two', 'keys/key-a', 'keys/key-b', 'keys/other']) writeFileSync(join(home, name), '');
  const path = ['/usr/bin', '/bin', join(home, '.cargo/bin'), join(home, '.local/bin'), join(home, '.nvm/versions/node/v20/bin')].join(':');
  const entries = [...DEFAULT_READ_DENY, '~/.secret*', `${home}/keys/key*`, `${home}/keys/*ring`, '/etc/hostname', `${dir}/none/*`];
  return { home, path, entries };
}

/** The plan and environment as the runner completes them for this host. */
function completedByRunner(entries: string[], path: string, home: string): { denied: string[]; readable: string[] } {
  const plan = { ...UNCONFINED, backend: 'landlock' as const, view: 'session' as const, denied: entries };
  const record = encode({ cwd: '/', plan, command: 'true', env: { PATH: path } });
  const run = spawnSync(runnerPath(), ['--check-request', '--completed'], { input: record, encoding: 'utf8', env: { ...process.env, HOME: home } });
  expect(run.status).toBe(0);
  return (JSON.parse(run.stdout) as { plan: { denied: string[]; readable: string[] } }).plan;
}

describe('the read policy, derived here and by a remote host\'s runner', () => {
  it('denies the same paths and shows the same toolchains and resolver, field by field, in the same order', async () => {
    const { home, path, entries } = fixture();
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      const found = await hostReadPaths(entries, path);
      const here = { denied: found.denied, readable: [...found.toolchains, ...(found.resolver ? [found.resolver] : [])] };
      const there = completedByRunner(entries, path, home);
      expect(there.denied).toEqual(here.denied);
      expect(there.readable).toEqual(here.readable);
      // The fixture reaches every kind of entry: a home's, a * match, a plain path.
      expect(here.denied).toEqual(expect.arrayContaining([join(home, '.ssh'), join(home, '.secret-one'), join(home, 'keys/key-b'), join(home, 'keys/ring'), '/etc/hostname']));
      expect(here.readable).toEqual(expect.arrayContaining([join(home, '.cargo'), join(home, '.rustup'), join(home, '.local/bin'), join(home, '.nvm')]));
    } finally {
      process.env.HOME = saved;
    }
  });
});
