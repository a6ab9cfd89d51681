// Writable roots never reach code or configuration the runtime or the host runs: a workspace-write session inside the
// package (its node_modules, its dist), a system tree, a PATH directory or a home's dot-directory is refused before
// anything runs, with the reason; an ordinary project directory works. Both backends, real commands.
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/native/loader.js';
import { rootLimitProblem, runtimeCode } from '../../src/sandbox/writable-roots.js';
import { bash, text } from '../helpers/calls.js';
import { runtimes } from '../helpers/runtimes.js';

const open = runtimes();
const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-roots-')));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const pkg = packageRoot();
const probe = `.shellring-root-probe-${process.pid}`;

/** The runtime's own tree a path lies in, as the sandbox names it: the package, or a dependency linked from outside. */
const ownerOf = (path: string) => (realpathSync(path).startsWith(`${pkg}/`) ? pkg : realpathSync(path));
const refused = (root: string, why: string) => `sandbox workspace root "${root}" is refused: ${why}`;
const HOLDS = (tree: string) => `it contains ${tree}, where the host keeps programs and configuration it runs; use a project directory`;
const SYSTEM = (tree: string) => `it lies inside ${tree}, where the host keeps programs and configuration it runs; use a project directory`;

describe.each(['landlock', 'bubblewrap'] as const)('workspace-write roots under %s', (backend) => {
  const cases: [string, () => string, string][] = [
    // Where the package's node_modules is a link (pnpm, or a checkout sharing its dependencies), the dependency is
    // refused where it really is.
    ['a dependency of the package', () => join(pkg, 'node_modules', 'zod'), `it lies inside the runtime's own files (${ownerOf(join(pkg, 'node_modules', 'zod'))}); use a project directory`],
    ["the package's compiled code", () => join(pkg, 'dist', 'src'), `it lies inside the runtime's own files (${pkg}); use a project directory`],
    ['/etc', () => '/etc', SYSTEM('/etc')],
    ['/usr/local', () => '/usr/local', SYSTEM('/usr')],
    ['/var/lib', () => '/var/lib', SYSTEM('/var/lib')],
    ['/opt', () => '/opt', SYSTEM('/opt')],
    ['/var, above /var/lib', () => '/var', HOLDS('/var/lib')],
    ["a home's dot-directory", () => join(realpathSync(homedir()), '.config'), `it lies inside ${join(realpathSync(homedir()), '.config')}, where a home keeps configuration and tools its programs run; use a project directory`],
  ];

  it.each(cases)('refuses %s, and nothing is written there', async (_name, rootOf, why) => {
    const root = rootOf();
    mkdirSync(root, { recursive: true });
    const runtime = await open({ sandbox: { mode: 'workspace-write', backend } });
    const session = runtime.session({ id: 'root', cwd: root });
    try {
      const result = await bash(session, `touch ${probe} && echo wrote`);
      expect(result.isError).toBe(true);
      expect(text(result)).toBe(`Error: ${refused(realpathSync(root), why)}`);
      expect(existsSync(join(root, probe))).toBe(false);
    } finally {
      rmSync(join(root, probe), { force: true });
    }
  });

  it('refuses a root that holds a directory of the runtime’s PATH', async () => {
    const root = join(work, `${backend}-tools`);
    const bin = join(root, 'bin');
    mkdirSync(bin, { recursive: true });
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    try {
      const runtime = await open({ sandbox: { mode: 'workspace-write', backend } });
      const result = await bash(runtime.session({ id: 'path', cwd: root }), 'touch bin/ls && echo wrote');
      expect(text(result)).toBe(`Error: ${refused(root, `it would make ${bin}, a directory on the runtime's PATH, writable; use a project directory`)}`);
      expect(existsSync(join(bin, 'ls'))).toBe(false);
    } finally {
      process.env.PATH = path;
    }
  });

  it('accepts an ordinary project directory, where the command writes', async () => {
    const root = join(work, `${backend}-project`);
    mkdirSync(root, { recursive: true });
    const runtime = await open({ sandbox: { mode: 'workspace-write', backend } });
    const result = await bash(runtime.session({ id: 'project', cwd: root }), `touch ${probe} && echo wrote`);
    expect(text(result)).toBe('wrote\n');
    expect(existsSync(join(root, probe))).toBe(true);
  });
});

describe('the limits a root is judged against', () => {
  const limits = { own: ['/app/node_modules', '/state/spill'], path: ['/', '/home/u', '/home/u/bin', '/tools/bin'], homes: ['/home/u'] };

  it('refuses the system trees, the runtime’s files both ways, PATH directories and a home’s dot-directories', () => {
    for (const [root, tree] of [['/etc/ssl', '/etc'], ['/usr/local/etc', '/usr'], ['/var/lib/dpkg', '/var/lib'], ['/var/spool/cron', '/var/spool'], ['/boot', '/boot'], ['/run/systemd', '/run'], ['/lib64', '/lib64']]) {
      expect(rootLimitProblem(root!, limits), root).toBe(SYSTEM(tree!));
    }
    expect(rootLimitProblem('/app/node_modules/zod', limits)).toBe("it lies inside the runtime's own files (/app/node_modules); use a project directory");
    expect(rootLimitProblem('/state', limits)).toBe("it contains the runtime's own files (/state/spill); use a narrower directory");
    expect(rootLimitProblem('/tools', limits)).toBe("it would make /tools/bin, a directory on the runtime's PATH, writable; use a project directory");
    expect(rootLimitProblem('/home/u/bin', limits)).toBe("it would make /home/u/bin, a directory on the runtime's PATH, writable; use a project directory");
    expect(rootLimitProblem('/home/u/.ssh', limits)).toBe('it lies inside /home/u/.ssh, where a home keeps configuration and tools its programs run; use a project directory');
    expect(rootLimitProblem('/home/u/.cargo/registry/src', limits)).toContain('it lies inside /home/u/.cargo,');
  });

  it('refuses a root above a system tree or a home: it would reach what they hold', () => {
    expect(rootLimitProblem('/var', limits)).toBe(HOLDS('/var/lib'));
    const HOME = (home: string) => `it contains the home directory ${home}, whose dot-directories hold configuration and tools its programs run; use a project directory`;
    expect(rootLimitProblem('/home', limits)).toBe(HOME('/home/u'));
    expect(rootLimitProblem('/home/u', limits)).toBe(HOME('/home/u'));
    expect(rootLimitProblem('/home/bob', { ...limits, homes: ['/home/u', '/home/bob'] })).toBe(HOME('/home/bob'));
  });

  it('accepts project and data places: a project in a home, /srv, /var/www, /tmp, a directory inside a PATH directory', () => {
    for (const root of ['/home/u/project', '/home/u/project/.git', '/srv/app', '/var/www/site', '/tmp/ws', '/tools/bin/sub', '/etcetera', '/variable']) {
      expect(rootLimitProblem(root, limits), root).toBeUndefined();
    }
  });

  it("names the package's outermost node_modules, each dependency where it is, and node's installation outside the system", () => {
    expect(runtimeCode('/app/node_modules/.pnpm/shellring@1/node_modules/shellring', process.execPath)[0]).toBe('/app/node_modules');
    const code = runtimeCode(pkg, process.execPath);
    expect(code).toContain(realpathSync(join(pkg, 'node_modules', 'zod')));
    expect(code.some((dir) => dir === '/usr' || dir.startsWith('/usr/'))).toBe(false);
  });
});
