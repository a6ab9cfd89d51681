// Every default readDeny entry, each on its own: a file or directory it names is planted where a view would
// otherwise show it (the host view, the session view with the home in readAllow, and, for ~/.cargo's credentials, the
// session view that shows ~/.cargo because it is on PATH), and a confined command must find it masked (a file as an
// empty character device, a directory as an empty tmpfs) while a neighbour it does not name stays readable. Both
// backends, as root and as an unprivileged user; removing any one entry from the defaults fails its test.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_READ_DENY } from '../../src/sandbox/read-policy.js';
import { type Facts, isRoot, runScenarios, unprivilegedUid, users } from './harness.js';

const script = join(import.meta.dirname, 'read-deny.mjs');
const tag = `shellring-deny-${process.pid}`;
const home = join('/home', tag);
type Config = 'host' | 'session-readAllow' | 'session-toolchain';
const ALL: Config[] = ['host', 'session-readAllow', 'session-toolchain'];
const HOME_SHOWN: Config[] = ['host', 'session-readAllow'];

/** Each default entry: the path probed (a directory entry's own directory, or the file), whether it is a directory,
 * what is planted for it, and the views that would show it unmasked. */
interface Entry {
  entry: string;
  path: string;
  dir: boolean;
  plant: string;
  views: Config[];
}
const inHome = (entry: string, dir: boolean, plant: string, views = HOME_SHOWN): Entry => ({
  entry,
  path: join(home, entry.slice(2)),
  dir,
  plant: join(home, plant),
  views,
});
const ENTRIES: Entry[] = [
  ...['/etc/shadow', '/etc/shadow-', '/etc/gshadow', '/etc/gshadow-'].map((path) => ({ entry: path, path, dir: false, plant: path, views: ALL })),
  { entry: '/etc/sudoers*', path: `/etc/sudoers.${tag}`, dir: false, plant: `/etc/sudoers.${tag}`, views: ALL },
  { entry: '/etc/ssh/*_key', path: `/etc/ssh/${tag}_key`, dir: false, plant: `/etc/ssh/${tag}_key`, views: ALL },
  inHome('~/.ssh', true, '.ssh/id_ed25519'),
  inHome('~/.aws', true, '.aws/credentials'),
  inHome('~/.azure', true, '.azure/msal_token_cache.json'),
  inHome('~/.config/gcloud', true, '.config/gcloud/credentials.db'),
  inHome('~/.kube', true, '.kube/config'),
  inHome('~/.docker/config.json', false, '.docker/config.json'),
  inHome('~/.npmrc', false, '.npmrc'),
  inHome('~/.netrc', false, '.netrc'),
  inHome('~/.pypirc', false, '.pypirc'),
  inHome('~/.git-credentials', false, '.git-credentials'),
  inHome('~/.gnupg', true, '.gnupg/private-keys-v1.d/key.key'),
  inHome('~/.config/gh', true, '.config/gh/hosts.yml'),
  inHome('~/.cargo/credentials', false, '.cargo/credentials', ALL),
  inHome('~/.cargo/credentials.toml', false, '.cargo/credentials.toml', ALL),
];
/** Neighbours no entry names, beside what is masked: the view shows the places the entries lie in. */
const SHOWN = [
  { path: join(home, '.config', 'other.conf'), text: 'visible', views: HOME_SHOWN },
  { path: join(home, '.cargo', 'bin', 'tool'), text: 'tool', views: ALL },
];

/** Plants each entry's file (world-readable: only the mask may hide it) and the neighbours; returns the cleanup. */
function plant(uid: number | undefined): () => void {
  const made: string[] = [];
  const file = (path: string, text: string) => {
    for (let dir = dirname(path); !existsSync(dir); dir = dirname(dir)) made.push(dir);
    mkdirSync(dirname(path), { recursive: true });
    if (existsSync(path)) return;
    writeFileSync(path, text);
    chmodSync(path, 0o644);
    made.push(path);
  };
  for (const { entry, plant: path } of ENTRIES) file(path, `secret of ${entry}\n`);
  for (const { path, text } of SHOWN) file(path, `${text}\n`);
  if (uid !== undefined) execFileSync('chown', ['-R', `${uid}:${uid}`, home]);
  return () => {
    rmSync(home, { recursive: true, force: true });
    for (const path of made.reverse()) rmSync(path, { recursive: true, force: true });
  };
}

it('covers every default entry', () => {
  expect(ENTRIES.map((e) => e.entry)).toEqual([...DEFAULT_READ_DENY]);
});

describe.runIf(isRoot).each(['landlock', 'bubblewrap'])('default readDeny entries on backend %s', (backend) => {
  describe.each(users)('as %s', (user) => {
    const probes = [...ENTRIES.map((e) => e.path), ...SHOWN.map((s) => s.path)];
    // Planted before the block's tests and removed after them, each block in its turn: a block a filter skips plants
    // nothing in /etc, and none finds what another planted (and then leaves it behind).
    let facts: Facts = {};
    let cleanup = () => {};
    beforeAll(() => {
      cleanup = plant(user === 'unprivileged' ? unprivilegedUid() : undefined);
      process.env.SHELLRING_READ_DENY = JSON.stringify({ home, probes });
      try {
        facts = runScenarios(script, backend, user);
      } finally {
        delete process.env.SHELLRING_READ_DENY;
      }
    }, 300_000);
    afterAll(() => cleanup());
    const probe = (config: Config, path: string) => {
      const [type, fs, listing, bytes] = facts[config][probes.indexOf(path)].split('|');
      return { type, fs, listing, bytes };
    };

    it.each(ENTRIES)('masks $entry wherever a view would show it', ({ path, dir, views }) => {
      for (const config of views) {
        const seen = probe(config, path);
        if (dir) expect({ fs: seen.fs, listing: seen.listing }, `${config}: ${path}`).toEqual({ fs: 'tmpfs', listing: '' });
        else expect({ type: seen.type, bytes: seen.bytes }, `${config}: ${path}`).toEqual({ type: 'character special file', bytes: '' });
      }
    });

    it('shows what no entry names beside them (so each mask above is what hides its path)', () => {
      for (const { path, text, views } of SHOWN) for (const config of views) expect(probe(config, path).bytes, `${config}: ${path}`).toBe(`${text} `);
    });
  });
});
