// Root-only files stay root-only: files only root may read, planted under /etc, /opt and /usr/local/etc (and the
// snakeoil key where ssl-cert installed one), are refused to confined commands on both backends, under both read
// policies and both confining modes, run as root (whose owner bits would let it read them) and as an unprivileged user;
// a world-readable file still reads, and so does the workspace's own root-only file. Unconfined root reads them all.
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isRoot, runScenarios, users } from './harness.js';

const script = join(import.meta.dirname, 'root-only.mjs');
const CONFIGS = ['session/read-only', 'session/workspace-write', 'session/escalated', 'host/read-only', 'host/workspace-write', 'host/escalated'];
const SECRET = 'root-only-secret';
const SNAKEOIL = '/etc/ssl/private/ssl-cert-snakeoil.key';

/** Files only root may read, each made here and removed after the file's tests (with any directory made for it). */
function plant(): { secrets: string[]; public: string; cleanup: () => void } {
  const tag = `shellring-root-only-${process.pid}`;
  const made: string[] = [];
  const dir = (path: string) => {
    if (!existsSync(path)) {
      mkdirSync(path, { recursive: true });
      made.push(path);
    }
    return path;
  };
  const file = (path: string, mode: number, text = `${SECRET}\n`) => {
    writeFileSync(path, text);
    chmodSync(path, mode);
    made.push(path);
    return path;
  };
  const secrets = [
    file(join('/etc', tag), 0o600),
    file(join(dir(join('/opt', tag)), 'secret'), 0o600),
    file(join(dir('/usr/local/etc'), `${tag}.conf`), 0o640),
  ];
  if (existsSync(SNAKEOIL)) secrets.push(SNAKEOIL);
  const open = file(join('/etc', `${tag}-public`), 0o644, 'world-readable\n');
  const cleanup = () => {
    for (const path of made.reverse()) rmSync(path, { recursive: true, force: true });
  };
  return { secrets, public: open, cleanup };
}

describe.runIf(isRoot).each(['landlock', 'bubblewrap'])('root-only files on backend %s', (backend) => {
  const planted = plant();
  afterAll(() => planted.cleanup());

  describe.each(users)('as %s', (user) => {
    process.env.SHELLRING_ROOT_ONLY = JSON.stringify({ secrets: planted.secrets, public: planted.public });
    const facts = runScenarios(script, backend, user);
    delete process.env.SHELLRING_ROOT_ONLY;
    const refused = `${planted.secrets.map(() => 'refused\n').join('')}world-readable\nown-file\n`;

    it.each(CONFIGS)('%s: every root-only file is shown and refused; the world-readable one and its own file read', (config) => {
      expect(facts[config]).toBe(refused);
    });

    it('unconfined, root reads every one of them (so each refusal is the sandbox’s)', () => {
      const read = user === 'root' ? 'read' : 'refused';
      expect(facts.unconfined).toBe(`${planted.secrets.map(() => `${read}\n`).join('')}world-readable\nown-file\n`);
    });
  });
});
