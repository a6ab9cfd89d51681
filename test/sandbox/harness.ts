// Runs a sandbox scenario script in a child Node process, as root or as an unprivileged user created here.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, closeSync, cpSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const UNPRIVILEGED = 'shellring-sbx';
export const isRoot = process.getuid?.() === 0;
export const users = isRoot ? (['root', 'unprivileged'] as const) : (['unprivileged'] as const);
const repo = join(import.meta.dirname, '..', '..');

export type Facts = Record<string, any>;

export function unprivilegedUid(): number {
  try {
    execFileSync('id', ['-u', UNPRIVILEGED], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', UNPRIVILEGED]);
  }
  return Number(execFileSync('id', ['-u', UNPRIVILEGED], { encoding: 'utf8' }).trim());
}

type Lock = { packages: Record<string, { dev?: boolean; devOptional?: boolean; dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> }> };

/** The installed packages the package needs at run time (the lockfile's, less those only development needs: a sixth
 * of node_modules), and `also` with what they need in turn (a face's optional peer packages). */
function runtimeModules(also: string[] = []): string[] {
  const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as Lock;
  const top = (path: string) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(path) && existsSync(join(repo, path));
  const wanted = new Set(Object.entries(lock.packages).filter(([path, entry]) => top(path) && !entry.dev && !entry.devOptional).map(([path]) => path));
  const queue = also.map((name) => `node_modules/${name}`);
  while (queue.length) {
    const path = queue.pop()!;
    if (wanted.has(path) || !top(path)) continue;
    wanted.add(path);
    const entry = lock.packages[path];
    queue.push(...Object.keys({ ...entry?.dependencies, ...entry?.optionalDependencies }).map((name) => `node_modules/${name}`));
  }
  return [...wanted];
}

/** True when the unprivileged user can do `test <flag> path` (every parent of `path` included). */
function canReach(flag: '-r' | '-x', path: string): boolean {
  try {
    execFileSync('runuser', ['-u', UNPRIVILEGED, '--', 'test', flag, path], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Node and the script as the unprivileged user can reach them: in place, or (when the checkout or Node sits below
 * a directory only its owner may enter, like /root or a 0700 `mktemp -d`) copies under the temp directory, of
 * what the package needs at run time (and `packages`, with what they need) and of the Node binary. */
export function reachable(script: string, stage: string, packages: string[] = []): { node: string; script: string } {
  const node = canReach('-x', process.execPath) ? process.execPath : join(stage, 'node');
  // mkdtemp makes it 0700; the unprivileged user must be able to enter it.
  chmodSync(stage, 0o755);
  if (node !== process.execPath) cpSync(process.execPath, node);
  if (process.env.SHELLRING_TEST_STAGE !== '1' && canReach('-r', script)) return { node, script };
  const relative = script.slice(repo.length + 1);
  // Every scenario script of its directory: they share helpers (the host-side network witness, the re-run without
  // namespaces).
  const scripts = readdirSync(join(repo, dirname(relative))).filter((name) => name.endsWith('.mjs')).map((name) => join(dirname(relative), name));
  const entries = ['package.json', 'dist', ...runtimeModules(packages), 'shellring-runner', relative, ...scripts];
  entries.push(...readdirSync(repo).filter((name) => name.endsWith('.node')));
  for (const entry of entries) cpSync(join(repo, entry), join(stage, entry), { recursive: true, verbatimSymlinks: true });
  return { node, script: join(stage, relative) };
}

export interface ScenarioOptions {
  /** A file opened for writing and handed to the script as this descriptor (not close-on-exec). */
  leakedFd?: { fd: number; path: string };
  /** Packages the script imports beyond what the package needs at run time (staged with it for another user). */
  packages?: string[];
}

/** Runs `node <script> <backend> <base>` and returns the last line of its stdout, parsed. */
export function runScenarios(script: string, backend: string, user: 'root' | 'unprivileged', options: ScenarioOptions = {}): Facts {
  const base = mkdtempSync(join(tmpdir(), `shellring-sbx-${backend}-`));
  const stage = mkdtempSync(join(tmpdir(), 'shellring-sbx-stage-'));
  let leaked: number | undefined;
  try {
    let command = [process.execPath, script, backend, base];
    if (user === 'unprivileged' && isRoot) {
      const uid = unprivilegedUid();
      chownSync(base, uid, uid);
      const reached = reachable(script, stage, options.packages);
      command = ['runuser', '-u', UNPRIVILEGED, '--', reached.node, reached.script, backend, base];
    }
    const stdio: (string | number)[] = ['ignore', 'pipe', 'inherit'];
    if (options.leakedFd) {
      leaked = openSync(options.leakedFd.path, 'w');
      while (stdio.length < options.leakedFd.fd) stdio.push('ignore');
      stdio.push(leaked);
    }
    // In its base directory: another user may not enter the checkout, and what the script starts (git's own
    // programs ask for their working directory) inherits it.
    const out = execFileSync(command[0]!, command.slice(1), { cwd: base, encoding: 'utf8', timeout: 120_000, stdio: stdio as never });
    return JSON.parse(out.trim().split('\n').at(-1)!) as Facts;
  } finally {
    if (leaked !== undefined) closeSync(leaked);
    rmSync(base, { recursive: true, force: true });
    rmSync(stage, { recursive: true, force: true });
  }
}
