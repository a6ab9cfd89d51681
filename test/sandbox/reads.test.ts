// What confined commands can read, per backend, as root and as an unprivileged user, under both read policies and
// both confining modes: each probe that reads another's data must fail, and the same probes unconfined succeed.
import { describe, expect, it } from 'vitest';
import { chownSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runScenarios, unprivilegedUid, UNPRIVILEGED, users } from './harness.js';

const script = join(import.meta.dirname, 'reads.mjs');
const CONFIGS = ['session/read-only', 'session/workspace-write', 'host/read-only', 'host/workspace-write'] as const;
const SECRET = 'planted-credential-secret';

/** A credential file in the runtime user's home (a directory the default readDeny names), removed afterwards. */
function plant(user: 'root' | 'unprivileged'): { path: string; cleanup: () => void } {
  const home = user === 'root' ? '/root' : join('/home', UNPRIVILEGED);
  const dir = join(home, '.aws');
  const made = [home, dir].filter((path) => !existsSync(path));
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `shellring-plant-${process.pid}`);
  writeFileSync(path, `${SECRET}\n`, { mode: 0o600 });
  if (user === 'unprivileged') {
    const uid = unprivilegedUid();
    for (const p of [home, dir, path]) chownSync(p, uid, uid);
  }
  return {
    path,
    cleanup: () => {
      rmSync(path, { force: true });
      for (const p of made.reverse()) rmSync(p, { recursive: true, force: true });
    },
  };
}

describe.each(['landlock', 'bubblewrap'])('reads on backend %s', (backend) => {
  describe.each(users)('as %s', (user) => {
    const planted = plant(user);
    process.env.SHELLRING_PLANTS = JSON.stringify([planted.path]);
    let facts: Record<string, any>;
    try {
      facts = runScenarios(script, backend, user);
    } finally {
      planted.cleanup();
      delete process.env.SHELLRING_PLANTS;
    }

    it('the probes succeed unconfined (so each refusal below is the sandbox’s)', () => {
      const u = facts.unconfined;
      expect(u.otherWorkspace).toContain('b-secret');
      expect(u.plants).toContain(SECRET);
      expect(u.cmdline).toMatch(/^\/proc\/\d+\/cmdline$/m);
      expect(u.keyRead).toContain('key-secret');
      expect(facts.keyId).toBeGreaterThan(0);
    });

    describe.each(CONFIGS)('read policy and mode %s', (config) => {
      const f = () => facts[config];

      it('reads no credential store: /etc/shadow, a planted ~/.aws file', () => {
        expect(f().shadow).not.toMatch(/root:/);
        expect(f().plants).not.toContain(SECRET);
      });

      it('sees no other process’s command line in /proc (a pid namespace of its own)', () => {
        expect(f().cmdline).toBe('end\n');
      });

      it('neither reads nor adds kernel keys', () => {
        expect(f().keyRead).toMatch(/^refused 13$/m);
        expect(f().keyRead).not.toContain('key-secret');
        expect(f().keyAdd).toMatch(/^refused$/m);
      });

      it('opens its own spill file at the path its result names', () => {
        expect(f().spillPathShown).toBe(true);
        expect(f().ownSpill).toBe('5000\n');
      });

      it('still runs developer tools (git status, node -v, python3, and in workspace-write cc and make)', () => {
        expect(f().tools).toMatch(/tools-ok\n$/);
        if (config.endsWith('workspace-write')) expect(f().tools).toContain('made\n');
      });
    });

    it('under the session policy, reads no other session’s workspace and sees /root and /home empty', () => {
      for (const config of ['session/read-only', 'session/workspace-write']) {
        expect(facts[config].otherWorkspace, config).not.toContain('b-secret');
        expect(facts[config].home, config).not.toContain('.aws');
      }
    });

    it('under the host policy, reads what the user can beyond the denied stores (the wider view, as configured)', () => {
      expect(facts['host/read-only'].otherWorkspace).toContain('b-secret');
    });
  });
});
