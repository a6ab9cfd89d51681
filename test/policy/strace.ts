// Running a command for real under `strace -f`, in a scratch copy of a small workspace (a file to remove, a git
// repository whose `origin` is a bare repository beside it), as root or as an unprivileged user: which programs it
// executed (path and argv, successful execs only) and whether a push reached the remote.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, lchownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Exec {
  path: string;
  argv: string[];
}

export interface Traced {
  execs: Exec[];
  /** The remote received a push. */
  pushed: boolean;
}

/** nobody: any machine has it, and it owns nothing of the checkout. */
export const NOBODY = { uid: 65534, gid: 65534 };

const ENV = { PATH: '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin', LC_ALL: 'C', GIT_CONFIG_NOSYSTEM: '1' };

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, { cwd, stdio: 'ignore', env: { ...ENV, HOME: cwd } });
}

/** A template workspace, made once: `work/` (a repository with one commit) and `remote.git/` (its origin). */
export function makeTemplate(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-strace-template-')));
  const work = join(root, 'work');
  mkdirSync(work);
  git(root, 'init', '-q', '--bare', 'remote.git');
  git(work, 'init', '-q', '-b', 'main');
  git(work, 'config', 'user.name', 'test');
  git(work, 'config', 'user.email', 'test@example.com');
  git(work, 'config', 'push.default', 'current');
  // Relative, so that each copy pushes to its own remote.
  git(work, 'remote', 'add', 'origin', '../remote.git');
  writeFileSync(join(work, 'victim'), 'victim\n');
  writeFileSync(join(work, 'f'), '');
  // Files the refused shapes name: running one would execute rm, which the trace sees.
  writeFileSync(join(work, 'e.sh'), 'rm victim\n');
  writeFileSync(join(work, 'cfg'), '[alias]\n\tst = !rm victim\n');
  git(work, 'add', 'victim');
  git(work, 'commit', '-q', '-m', 'one');
  return root;
}

function chownTree(dir: string, owner: typeof NOBODY): void {
  chownSync(dir, owner.uid, owner.gid);
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) lchownSync(join(dir, entry), owner.uid, owner.gid);
}

/** Whether the bare repository `remote` holds a branch: a loose ref or a packed one. */
function received(remote: string): boolean {
  if (existsSync(join(remote, 'refs', 'heads', 'main'))) return true;
  return existsSync(join(remote, 'packed-refs')) && readFileSync(join(remote, 'packed-refs'), 'utf8').includes('refs/heads/');
}

/** Runs `bash -c command` under strace in a fresh copy of `template`, as `owner` when given (root only). */
export function traced(template: string, command: string, owner?: typeof NOBODY): Traced {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-strace-')));
  chmodSync(dir, 0o755);
  try {
    cpSync(template, dir, { recursive: true });
    const work = join(dir, 'work');
    const log = join(dir, 'trace.log');
    writeFileSync(log, '');
    if (owner) {
      chownTree(dir, owner);
      chownSync(log, owner.uid, owner.gid);
    }
    const strace = ['strace', '-f', '-qq', '-z', '-v', '-s', '4096', '-e', 'trace=execve', '-o', log, 'bash', '-c', command];
    const argv = owner ? ['setpriv', `--reuid=${owner.uid}`, `--regid=${owner.gid}`, '--clear-groups', '--', ...strace] : strace;
    spawnSync(argv[0]!, argv.slice(1), { cwd: work, stdio: 'ignore', timeout: 20_000, env: { ...ENV, HOME: work } });
    const execs = parse(readFileSync(log, 'utf8'));
    return { execs, pushed: received(join(dir, 'remote.git')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Successful execve lines: `[pid] execve("path", ["argv0", ...], ...) = 0`. */
function parse(log: string): Exec[] {
  const execs: Exec[] = [];
  const quoted = /"((?:[^"\\]|\\.)*)"/y;
  for (const line of log.split('\n')) {
    const at = line.indexOf('execve("');
    if (at < 0) continue;
    quoted.lastIndex = at + 'execve('.length;
    const path = quoted.exec(line);
    if (!path || !line.startsWith(', [', quoted.lastIndex)) continue;
    const argv: string[] = [];
    let i = quoted.lastIndex + 3;
    while (line[i] === '"') {
      quoted.lastIndex = i;
      const part = quoted.exec(line);
      if (!part) break;
      argv.push(decoded(part[1]!));
      i = quoted.lastIndex;
      if (line.startsWith(', ', i)) i += 2;
    }
    execs.push({ path: decoded(path[1]!), argv });
  }
  return execs;
}

function decoded(text: string): string {
  return text.replace(/\\(x[0-9a-f]{2}|[0-7]{1,3}|.)/g, (_, code: string) => {
    if (code[0] === 'x') return String.fromCharCode(Number.parseInt(code.slice(1), 16));
    if (/^[0-7]+$/.test(code)) return String.fromCharCode(Number.parseInt(code, 8));
    return ({ n: '\n', t: '\t', r: '\r', v: '\v', f: '\f' } as Record<string, string>)[code] ?? code;
  });
}
