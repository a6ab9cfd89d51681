// Runs a sandbox scenario script in a child Node process, as root or as an unprivileged user created here.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, closeSync, cpSync, mkdtempSync, openSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

/** The script as the unprivileged user can reach it: in place, or (when the checkout sits below a directory
 * only root may enter, like /root) in a copy of what the package needs at run time under the temp directory. */
function reachable(script: string, stage: string): string {
  if (process.env.SHELLRING_TEST_STAGE !== '1') {
    try {
      execFileSync('runuser', ['-u', UNPRIVILEGED, '--', 'test', '-r', script], { stdio: 'ignore' });
      return script;
    } catch {
      // Not reachable: stage a copy.
    }
  }
  // mkdtemp makes it 0700; the unprivileged user must be able to enter it.
  chmodSync(stage, 0o755);
  const relative = script.slice(repo.length + 1);
  // The scripts share their host-side network witness.
  const entries = ['package.json', 'dist', 'node_modules', 'shellring-runner', relative, 'test/sandbox/network-witness.mjs'];
  entries.push(...readdirSync(repo).filter((name) => name.endsWith('.node')));
  for (const entry of entries) cpSync(join(repo, entry), join(stage, entry), { recursive: true, verbatimSymlinks: true });
  return join(stage, relative);
}

export interface ScenarioOptions {
  /** A file opened for writing and handed to the script as this descriptor (not close-on-exec). */
  leakedFd?: { fd: number; path: string };
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
      command = ['runuser', '-u', UNPRIVILEGED, '--', process.execPath, reachable(script, stage), backend, base];
    }
    const stdio: (string | number)[] = ['ignore', 'pipe', 'inherit'];
    if (options.leakedFd) {
      leaked = openSync(options.leakedFd.path, 'w');
      while (stdio.length < options.leakedFd.fd) stdio.push('ignore');
      stdio.push(leaked);
    }
    const out = execFileSync(command[0]!, command.slice(1), { encoding: 'utf8', timeout: 120_000, stdio: stdio as never });
    return JSON.parse(out.trim().split('\n').at(-1)!) as Facts;
  } finally {
    if (leaked !== undefined) closeSync(leaked);
    rmSync(base, { recursive: true, force: true });
    rmSync(stage, { recursive: true, force: true });
  }
}
