// Where each session's commands run under the SSH executor: a session is placed on one host for its life (the host
// with the fewest sessions, within its maxSessions) and gets one `--stdio` runner there; a channel that dropped is
// made again for the session's next call. The executor sees the same start/kill/release seam as the local hosts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { remoteErrors } from '../../contract/index.js';
import type { ExecutorConfig } from '../config.js';
import type { LaunchControl, LaunchListener } from '../hosts.js';
import type { KillCause, SupervisorTask } from '../protocol.js';
import { failAlone, type RunnerStream } from './runner-stream.js';
import { SshConnection } from './ssh-host.js';

interface Placement {
  connection: SshConnection;
  stream: Promise<RunnerStream> | undefined;
}

export class RemoteHosts {
  readonly #config: ExecutorConfig;
  #connections: Promise<SshConnection[]> | undefined;
  #controlDir: string | undefined;
  readonly #sessions = new Map<string, Promise<Placement>>();
  /** Remote commands run on another machine: no worker threads of ours supervise them. */
  readonly threads = [];
  readonly utilization = 0;

  constructor(config: ExecutorConfig) {
    this.#config = config;
  }

  start(task: SupervisorTask, listener: LaunchListener): LaunchControl {
    let control: LaunchControl | undefined;
    let cause: KillCause | undefined;
    let released = false;
    let ended = false;
    /** A terminal's lines (or an interrupt) sent while the session's runner is being reached: they follow in order. */
    const lines: string[] = [];
    this.#streamFor(task.sessionId ?? '').then(
      (stream) => {
        control = stream.start(task, listener);
        if (ended) control.end();
        if (cause) control.kill(cause);
        for (const line of lines.splice(0)) control.send(line);
        if (released) control.release();
      },
      (error: unknown) => failAlone(task, listener, error instanceof Error ? error.message : String(error)),
    );
    return {
      kill: (why) => (control ? control.kill(why) : (cause ??= why)),
      release: () => (control ? control.release() : (released = true)),
      end: () => (control ? control.end() : (ended = true)),
      send: (line) => (control ? control.send(line) : lines.push(line)),
    };
  }

  /** Ends the session's runner (and with it whatever it still runs there) and frees its place on the host. */
  async closeSession(sessionId: string | undefined): Promise<void> {
    const key = sessionId ?? '';
    const placement = this.#sessions.get(key);
    if (!placement) return;
    this.#sessions.delete(key);
    const placed = await placement.catch(() => undefined);
    if (!placed) return;
    placed.connection.sessions -= 1;
    const stream = await placed.stream?.catch(() => undefined);
    if (stream) {
      stream.close();
      await stream.ended;
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.#sessions.keys()].map((key) => this.closeSession(key)));
    const connections = await this.#connections?.catch(() => []);
    await Promise.all((connections ?? []).map((connection) => connection.close()));
    if (this.#controlDir) await rm(this.#controlDir, { recursive: true, force: true });
  }

  /** The connection a placed session uses (for tests and benchmarks that compare with plain ssh over it). */
  async connectionOf(sessionId: string | undefined): Promise<SshConnection | undefined> {
    return (await this.#sessions.get(sessionId ?? '')?.catch(() => undefined))?.connection;
  }

  async #streamFor(key: string): Promise<RunnerStream> {
    let placement = this.#sessions.get(key);
    if (!placement) {
      placement = this.#place();
      this.#sessions.set(key, placement);
      // A session no host could take is placed again at its next call.
      placement.catch(() => this.#sessions.get(key) === placement && this.#sessions.delete(key));
    }
    const placed = await placement;
    const current = await placed.stream?.catch(() => undefined);
    if (current?.alive) return current;
    // The first call of the session, or the one after its channel dropped: a channel (and a master) again.
    const stream = placed.connection.channel();
    placed.stream = stream;
    return stream;
  }

  async #place(): Promise<Placement> {
    const connections = await (this.#connections ??= this.#connect());
    const open = connections.filter((connection) => connection.sessions < connection.host.maxSessions);
    const connection = open.sort((a, b) => a.sessions - b.sessions)[0];
    if (!connection) throw new Error(remoteErrors.noHost);
    connection.sessions += 1;
    return { connection, stream: undefined };
  }

  async #connect(): Promise<SshConnection[]> {
    // Control sockets live in a private directory of this runtime (mkdtemp makes it 0700).
    this.#controlDir = await mkdtemp(join(tmpdir(), 'shellring-ssh-'));
    return (this.#config.hosts ?? []).map((host, index) => new SshConnection(host, this.#controlDir!, index));
  }
}
