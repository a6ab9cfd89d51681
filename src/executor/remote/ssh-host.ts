// One host reached through the system OpenSSH client: a ControlMaster connection made once (and again after it
// drops), and a `shellring-runner --stdio` channel per session multiplexed over it. The client is told exactly what
// to trust and use: the configured known_hosts file only (an unknown or changed key is refused), the configured key
// only (no agent, no other identity, no password), no pty, no forwarding of any kind, no user or system ssh_config.
import { spawn, type ChildProcess } from 'node:child_process';
import { access, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { remoteErrors, supervisionErrors } from '../../contract/index.js';
import { loadBinding } from '../../native/loader.js';
import type { SshHost } from '../ssh-options.js';
import { hostLabel } from './config.js';
import { RunnerStream } from './runner-stream.js';

/** How long a new master may take to authenticate before the attempt counts as failed. */
const CONNECT_MS = 20_000;
/** How long a master may take to exit on SIGTERM before it is killed. */
const CLOSE_MS = 2000;
/** Seconds between keep-alive probes, and how many may go unanswered before the connection counts as dropped. */
const ALIVE_INTERVAL_S = 2;
const ALIVE_COUNT = 3;

export class SshConnection {
  readonly host: SshHost;
  readonly label: string;
  readonly #controlPath: string;
  #master: Master | undefined;
  #closed = false;
  /** Sessions placed here, for placement. */
  sessions = 0;

  constructor(host: SshHost, controlDir: string, index: number) {
    this.host = host;
    this.label = hostLabel(host);
    this.#controlPath = join(controlDir, `h${index}`);
  }

  /** The arguments every ssh process for this host takes, before the host name. */
  options(): string[] {
    const { host } = this;
    const options = [
      '-F', '/dev/null',
      '-o', 'BatchMode=yes',
      '-o', 'StrictHostKeyChecking=yes',
      '-o', `UserKnownHostsFile=${host.knownHostsFile}`,
      '-o', 'GlobalKnownHostsFile=/dev/null',
      '-o', 'CheckHostIP=no',
      '-o', 'IdentitiesOnly=yes',
      '-o', 'IdentityAgent=none',
      '-o', 'ForwardAgent=no',
      '-o', 'ForwardX11=no',
      '-o', 'ClearAllForwardings=yes',
      '-o', 'PermitLocalCommand=no',
      '-o', 'RequestTTY=no',
      '-o', `ServerAliveInterval=${ALIVE_INTERVAL_S}`,
      '-o', `ServerAliveCountMax=${ALIVE_COUNT}`,
      '-o', `ControlPath=${this.#controlPath}`,
      '-i', host.identityFile,
      '-p', String(host.port),
    ];
    if (host.user) options.push('-l', host.user);
    return options;
  }

  /** The control socket of the master connection, for ssh commands that share it (benchmarks compare with one). */
  get controlPath(): string {
    return this.#controlPath;
  }

  /** The master ssh process while it runs (tests cut the connection by killing it). */
  get masterPid(): number | undefined {
    return this.#master?.child?.pid;
  }

  /** A new `--stdio` channel over the master (made first if there is none). Rejects with the host's line. */
  async channel(): Promise<RunnerStream> {
    await this.#connect();
    // The channel's stdout is a pipe of the native relay's, which reads it on a thread of its own.
    const [stdout, theirs] = loadBinding().pipe();
    let child: ChildProcess;
    try {
      child = spawn('ssh', [...this.options(), '-o', 'ControlMaster=no', '-T', this.host.host, `exec ${shellQuote(this.host.runnerPath)} --stdio`], {
        stdio: ['pipe', theirs, 'pipe'],
        env: sshEnv(),
      });
    } catch (error) {
      loadBinding().closeFd(stdout);
      throw error;
    } finally {
      loadBinding().closeFd(theirs);
    }
    child.on('error', () => {});
    // ssh's last word (the runner missing there, the far end closing) completes the line.
    const stderr = lastLine(child);
    return new RunnerStream(child, stdout, this.label, () => remoteErrors.hostLost(this.label, stderr()));
  }

  /** Ends the master connection: every channel over it ends with it. */
  async close(): Promise<void> {
    this.#closed = true;
    const master = this.#master;
    this.#master = undefined;
    await master?.ready.catch(() => undefined);
    const child = master?.child;
    if (child && running(child)) {
      // The master was let go of (unref) while it served; its end is waited for now, so it must hold the process
      // until then: an awaited close() would otherwise leave nothing to keep the event loop alive.
      child.ref();
      const exited = new Promise((resolve) => child.once('close', resolve));
      child.kill('SIGTERM');
      const kill = setTimeout(() => child.kill('SIGKILL'), CLOSE_MS);
      await exited;
      clearTimeout(kill);
    }
  }

  #connect(): Promise<void> {
    if (this.#closed) return Promise.reject(new Error(remoteErrors.unreachable(this.label, supervisionErrors.executorClosed)));
    const current = this.#master;
    // One master at a time: sessions whose first calls come together share the attempt.
    if (current && !current.failed && (current.child === undefined || running(current.child))) return current.ready;
    const master: Master = { child: undefined, failed: false, ready: Promise.resolve() };
    master.ready = this.#startMaster(master);
    master.ready.catch(() => (master.failed = true));
    this.#master = master;
    return master.ready;
  }

  async #startMaster(master: Master): Promise<void> {
    // A master that died left its socket behind: it would pass for the new one's before that is ready.
    await rm(this.#controlPath, { force: true });
    const child = spawn('ssh', [...this.options(), '-o', 'ControlMaster=yes', '-o', 'ControlPersist=no', '-N', '-T', this.host.host], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: sshEnv(),
    });
    master.child = child;
    child.on('error', () => {});
    child.unref();
    const stderr = lastLine(child);
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const deadline = Date.now() + CONNECT_MS;
    for (;;) {
      // The control socket appears once the master has authenticated the host and itself.
      if (await access(this.#controlPath).then(() => true, () => false)) return;
      const done = await Promise.race([exited.then(() => true), sleep(10).then(() => false)]);
      if (done || Date.now() > deadline) {
        if (!done) child.kill('SIGKILL');
        throw new Error(remoteErrors.unreachable(this.label, stderr() ?? remoteErrors.sshExited));
      }
    }
  }
}

interface Master {
  child: ChildProcess | undefined;
  failed: boolean;
  ready: Promise<void>;
}

function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** ssh's own environment: enough to run, and nothing that would reach an agent or an askpass program. */
function sshEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  if (process.env.HOME) env.HOME = process.env.HOME;
  return env;
}

/** The last non-empty line the process wrote to stderr, read on demand. */
function lastLine(child: ChildProcess): () => string | undefined {
  let text = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    text = (text + chunk).slice(-4096);
  });
  return () => text.trim().split('\n').filter(Boolean).pop()?.trim();
}

function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
