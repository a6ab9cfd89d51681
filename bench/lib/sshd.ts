// A real OpenSSH server for the tests and the ssh benchmark: sshd on a loopback port with its own host key, configuration and authorized
// key, running as the test's user (root here), and the client files the SSH executor needs to reach it.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runnerPath } from '../../src/native/assets.js';

export interface Sshd {
  port: number;
  dir: string;
  /** The executor's host entry for this server. */
  host: { host: string; port: number; user: string; identityFile: string; knownHostsFile: string; runnerPath: string; maxSessions: number };
  /** A known_hosts file that holds another key for the same address. */
  wrongKnownHosts: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** A loopback port nothing listens on now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function keygen(path: string): string {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path]);
  return readFileSync(`${path}.pub`, 'utf8').trim();
}

/** `home`: the HOME sshd gives the remote user's sessions (else the account's own); `user`: the account the client
 * logs in as (root by default), which must be able to read the authorized key. */
export async function startSshd(options: { home?: string; user?: string } = {}): Promise<Sshd> {
  const dir = mkdtempSync(join(tmpdir(), 'shellring-sshd-'));
  // sshd reads the authorized keys as the user who logs in; the client's private key stays 0600.
  if (options.user) chmodSync(dir, 0o711);
  // sshd's privilege separation directory.
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const hostKey = keygen(join(dir, 'host_key'));
  const otherKey = keygen(join(dir, 'other_host_key'));
  const clientKey = keygen(join(dir, 'id'));
  writeFileSync(join(dir, 'authorized_keys'), `${clientKey}\n`, { mode: options.user ? 0o644 : 0o600 });
  const port = await freePort();
  const config = [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${join(dir, 'host_key')}`,
    `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
    `PidFile ${join(dir, 'sshd.pid')}`,
    'PubkeyAuthentication yes',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'PermitRootLogin prohibit-password',
    'UsePAM no',
    'StrictModes no',
    // One channel per session: the 20-session tests need more than the default 10.
    'MaxSessions 100',
    'MaxStartups 100',
    'LogLevel ERROR',
    ...(options.home ? [`SetEnv HOME=${options.home}`] : []),
  ].join('\n');
  writeFileSync(join(dir, 'sshd_config'), `${config}\n`);
  writeFileSync(join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${hostKey.split(' ').slice(0, 2).join(' ')}\n`);
  writeFileSync(join(dir, 'wrong_known_hosts'), `[127.0.0.1]:${port} ${otherKey.split(' ').slice(0, 2).join(' ')}\n`);
  // Another account runs the runner: it gets a copy of its own here, so it never depends on the permissions of the
  // checkout's parents (a clone in a 0700 home or `mktemp -d` directory is out of its reach).
  const runner = options.user ? join(dir, 'shellring-runner') : runnerPath();
  if (options.user) {
    copyFileSync(runnerPath(), runner);
    chmodSync(runner, 0o755);
  }
  const child = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (chunk) => (log += chunk));
  const deadline = Date.now() + 20_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`sshd did not start: ${log}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    port,
    dir,
    host: {
      host: '127.0.0.1',
      port,
      user: options.user ?? 'root',
      identityFile: join(dir, 'id'),
      knownHostsFile: join(dir, 'known_hosts'),
      runnerPath: runner,
      maxSessions: 100,
    },
    wrongKnownHosts: join(dir, 'wrong_known_hosts'),
    process: child,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The pids of sshd's per-connection processes (children of the listener) and of their own children. */
export function sshdSessionPids(sshd: Sshd): number[] {
  const out = execFileSync('ps', ['-e', '-o', 'pid=,ppid=']).toString();
  const rows = out.trim().split('\n').map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const queue = [sshd.process.pid!];
  while (queue.length) {
    const parent = queue.pop()!;
    for (const [pid, ppid] of rows) {
      if (ppid === parent) {
        found.push(pid);
        queue.push(pid);
      }
    }
  }
  return found;
}
