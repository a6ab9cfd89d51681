// One sandbox per session: the first confined call of a session builds the session's view around a fork server
// inside it (`shellring-runner --session --serve`, its plan framed on stdin); later calls with the same confinement
// fork their runner there. A call whose confinement differs (the session's mode or read policy changed) retires the sandbox
// and builds another; a sandbox that died is rebuilt at the next call. The main thread owns each sandbox's socket
// and hands its number to whichever worker carries the call: every thread shares the process's descriptors.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { loadBinding } from '../native/loader.js';
import type { ConfinementPlan } from './wire/plan.js';
import { encodeSessionPlan } from './wire/request.js';

/** Bytes of a runner's command line shown in ps, as for the workers' fork servers. */
const TITLE_ROOM = 4000;

/** A session's sandbox while it may serve calls, and until its socket is closed. */
interface SessionSandbox {
  /** The confinement it was built for: the encoded plan of its calls, with their cgroups. */
  readonly key: string;
  readonly child: ChildProcess;
  /** This side of the server's socket; closed once the sandbox is gone or retired and no call holds it. */
  readonly socket: number;
  /** Resolves true once its server serves, false when it could not be built (the call is confined on its own). */
  readonly ready: Promise<boolean>;
  readonly exited: Promise<void>;
  /** Launches sent through its socket that have not ended yet. */
  holds: number;
  /** No longer the session's: dead, superseded or closed. */
  retired: boolean;
  socketClosed: boolean;
}

/** A sandbox's socket held for one launch; `release` once the launch is gone. */
export interface HeldSandbox {
  socket: number;
  release(): void;
}

export class SessionSandboxes {
  readonly #runnerPath: string;
  readonly #sessions = new Map<string, SessionSandbox>();
  /** Confinements whose sandbox could not be built, per session: their calls are confined one by one. */
  readonly #unbuildable = new Map<string, string>();

  constructor(runnerPath: string) {
    this.#runnerPath = runnerPath;
  }

  /**
   * The socket of `sessionKey`'s sandbox for a call confined by `plan`, built or rebuilt as needed; undefined when
   * none can be built here (no namespace, say), in which case the call is confined on its own as before.
   */
  async acquire(sessionKey: string, plan: ConfinementPlan, netKey?: string): Promise<HeldSandbox | undefined> {
    const frame = encodeSessionPlan(plan);
    const key = frame.toString('latin1');
    if (this.#unbuildable.get(sessionKey) === key) return undefined;
    let sandbox = this.#sessions.get(sessionKey);
    if (sandbox && sandbox.key !== key) {
      this.#retire(sandbox);
      sandbox = undefined;
    }
    if (!sandbox) {
      this.#unbuildable.delete(sessionKey);
      sandbox = this.#build(key, frame, plan.network === 'domains' ? netKey : undefined);
      this.#sessions.set(sessionKey, sandbox);
    }
    sandbox.holds++;
    const release = () => {
      sandbox.holds--;
      this.#closeSocket(sandbox);
    };
    if (!(await sandbox.ready) || sandbox.retired) {
      release();
      if (this.#sessions.get(sessionKey) === sandbox) {
        this.#sessions.delete(sessionKey);
        this.#unbuildable.set(sessionKey, key);
      }
      return undefined;
    }
    return { socket: sandbox.socket, release: onlyOnce(release) };
  }

  /** The outermost process of the session's sandbox (tests find its fork server below it). */
  pidOf(sessionKey: string): number | undefined {
    return this.#sessions.get(sessionKey)?.child.pid;
  }

  /** Ends the session's sandbox (its calls have ended already) and waits until none of its processes is left. */
  async closeSession(sessionKey: string): Promise<void> {
    this.#unbuildable.delete(sessionKey);
    const sandbox = this.#sessions.get(sessionKey);
    if (!sandbox) return;
    this.#retire(sandbox);
    await this.#end(sandbox);
  }

  async close(): Promise<void> {
    this.#unbuildable.clear();
    const all = [...this.#sessions.values()];
    for (const sandbox of all) this.#retire(sandbox);
    await Promise.all(all.map((sandbox) => this.#end(sandbox)));
  }

  /** How many sandboxes serve sessions now. */
  get size(): number {
    return this.#sessions.size;
  }

  /** `netKey`: the network is by name; the sandbox sends the listener it made in its namespace on fd 4, which the
   * host's proxy serves under that key. */
  #build(key: string, frame: Buffer, netKey: string | undefined): SessionSandbox {
    const binding = loadBinding();
    const [mine, theirs] = binding.socketpair(true);
    const net = netKey === undefined ? undefined : binding.socketpair(false);
    let child: ChildProcess;
    try {
      // fd 3 is the server's socket. Spawned from the main thread, whose end (the process's) ends the sandbox. Its
      // environment holds no secret of the host: PATH to find bubblewrap, and room for its runners' titles.
      child = spawn(this.#runnerPath, ['--session', '--serve'], {
        stdio: ['pipe', 'pipe', 'inherit', theirs, ...(net ? [net[1]] : [])],
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', SHELLRING_TITLE_ROOM: ' '.repeat(TITLE_ROOM) },
      });
    } finally {
      binding.closeFd(theirs);
      if (net) binding.closeFd(net[1]);
    }
    child.on('error', () => {});
    // The plan, read before anything is built; a sandbox that died first fails its `ready` as any other.
    child.stdin!.on('error', () => {});
    child.stdin!.end(frame);
    child.unref();
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const sandbox: SessionSandbox = {
      key,
      child,
      socket: mine,
      ready: firstLine(child).then((line) => (net ? attached(netKey!, net[0], line === 'ready') : line === 'ready')),
      exited,
      holds: 0,
      retired: false,
      socketClosed: false,
    };
    // Dead: the next call of its session builds another.
    child.once('exit', () => this.#retire(sandbox));
    return sandbox;
  }

  #retire(sandbox: SessionSandbox): void {
    sandbox.retired = true;
    for (const [session, current] of this.#sessions) if (current === sandbox) this.#sessions.delete(session);
    this.#closeSocket(sandbox);
  }

  /** Closing the last copy outside ends the server, once it has ended its commands: never while a call holds it
   * (its number could then name another descriptor by the time a worker sends on it). */
  #closeSocket(sandbox: SessionSandbox): void {
    if (!sandbox.retired || sandbox.holds > 0 || sandbox.socketClosed) return;
    sandbox.socketClosed = true;
    loadBinding().closeFd(sandbox.socket);
  }

  async #end(sandbox: SessionSandbox): Promise<void> {
    const { child } = sandbox;
    // Held until it has exited: nothing else may keep the event loop turning meanwhile.
    child.ref();
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await sandbox.exited;
  }
}

/** The child's first line on stdout ('' when it ended without one); stdout is let go after it. */
async function firstLine(child: ChildProcess): Promise<string> {
  const stdout = child.stdout!;
  const lines = createInterface({ input: stdout });
  const [line] = (await Promise.race([once(lines, 'line'), once(stdout, 'close').then(() => [''])]).catch(() => [''])) as [string];
  lines.close();
  stdout.destroy();
  return line;
}

/** Hands the listener a `ready` sandbox sent (before it said so) to the proxy; false when none came. The channel is
 * closed either way. */
function attached(netKey: string, channel: number, ready: boolean): boolean {
  const binding = loadBinding();
  try {
    if (!ready) return false;
    binding.netAttach(netKey, channel);
    return true;
  } catch {
    return false;
  } finally {
    binding.closeFd(channel);
  }
}

function onlyOnce(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
