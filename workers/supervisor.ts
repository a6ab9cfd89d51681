// The supervisor each Piscina task runs (loaded by entry.cjs): one command through shellring-runner; output goes straight into native captures.
import type { Readable } from 'node:stream';
import { execa, type Options } from 'execa';
import * as Comlink from 'comlink/dist/esm/comlink.mjs';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { loadBinding } from '../src/native/loader.js';
import { RunnerStatus, type RunnerEvent } from './runner-status.js';
import type { SupervisorTask, SupervisorResult, SupervisorControl, KillCause } from '../src/executor/protocol.js';

const binding = loadBinding();

export default async function supervise(task: SupervisorTask): Promise<SupervisorResult> {
  const run = new Supervised(task);
  Comlink.expose(run.control(), nodeEndpoint(task.port as unknown as Parameters<typeof nodeEndpoint>[0]));
  return run.settled;
}

class Supervised {
  readonly settled: Promise<SupervisorResult>;
  #task: SupervisorTask;
  #cause: KillCause | undefined;
  #pgid: number | undefined;
  #bashEnded = false;
  #graceTimer: NodeJS.Timeout | undefined;
  #spawned: Promise<{ pgid: number; runnerPid: number } | null>;
  #runnerExited: Promise<void>;
  #lifeline: Readable | undefined;

  constructor(task: SupervisorTask) {
    this.#task = task;
    let resolveSpawned!: (value: { pgid: number; runnerPid: number } | null) => void;
    this.#spawned = new Promise((resolve) => (resolveSpawned = resolve));
    let resolveExited!: () => void;
    this.#runnerExited = new Promise((resolve) => (resolveExited = resolve));
    this.settled = this.#start(resolveSpawned, resolveExited);
  }

  control(): SupervisorControl {
    return {
      spawned: () => this.#spawned,
      kill: (cause: KillCause) => this.#kill(cause),
      runnerExited: () => this.#runnerExited,
      release: () => this.#release(),
    };
  }

  async #start(
    onSpawned: (value: { pgid: number; runnerPid: number } | null) => void,
    onRunnerExit: () => void,
  ): Promise<SupervisorResult> {
    const { captureId, command, cwd, env, stdin, runnerPath, runnerArgs } = this.#task;
    const [outRead, outWrite] = binding.pipe();
    const [errRead, errWrite] = binding.pipe();
    binding.attachReader(captureId, 0, outRead);
    binding.attachReader(captureId, 1, errRead);
    let child;
    try {
      child = execa(runnerPath, [...runnerArgs, '-c', command], {
        cwd,
        env,
        extendEnv: false,
        ...(stdin === undefined ? {} : { input: stdin }),
        // fd 3: the runner's status socket, and its lifeline: when this end closes, it kills every descendant.
        stdio: [stdin === undefined ? 'ignore' : 'pipe', outWrite, errWrite, 'pipe'],
        // The runner starts its own session; detached keeps it out of the host's process group and terminal.
        detached: true,
        reject: false,
        buffer: false,
        cleanup: false,
      } as Options);
    } finally {
      // The child holds its own copies now; ours would keep the pipes open past the command's end.
      binding.closeFd(outWrite);
      binding.closeFd(errWrite);
    }
    this.#lifeline = child.stdio[3] as Readable;
    child.then(
      () => onRunnerExit(),
      () => onRunnerExit(),
    );

    const status = new RunnerStatus(this.#lifeline);
    const started = await status.next();
    if (started.type !== 'started') {
      onSpawned(null);
      const failure = started.type === 'error' ? started.message : await spawnFailure(child);
      // Readable once on stderr, for handles that never reject.
      binding.write(captureId, 1, Buffer.from(`${failure}\n`));
      binding.finish(captureId);
      return { kind: 'failed', error: failure, runnerFailed: started.type === 'error' };
    }
    this.#pgid = started.pid;
    onSpawned({ pgid: started.pid, runnerPid: child.pid! });
    if (this.#cause) this.#signalGroup('SIGTERM');

    const timer =
      this.#task.timeoutMs === null ? undefined : setTimeout(() => this.#kill('timeout'), this.#task.timeoutMs);
    const ended: RunnerEvent = await status.next();
    this.#bashEnded = true;
    clearTimeout(timer);
    await this.#drain();
    binding.finish(captureId);
    const cause = this.#cause ?? null;
    const { enforcement } = started;
    if (ended.type === 'exit') return { kind: 'ended', exitCode: ended.code, signal: null, cause, enforcement };
    if (ended.type === 'signal') return { kind: 'ended', exitCode: null, signal: ended.signal, cause, enforcement };
    return { kind: 'failed', error: 'shellring-runner ended without reporting the command status', runnerFailed: true };
  }

  /** First cause wins: a timeout after an abort stays an abort. TERM now, KILL after the grace. */
  #kill(cause: KillCause): void {
    if (this.#cause || this.#bashEnded) return;
    this.#cause = cause;
    if (this.#pgid === undefined) return;
    this.#signalGroup('SIGTERM');
  }

  #signalGroup(first: 'SIGTERM'): void {
    signalGroup(this.#pgid!, first);
    // KILL after the grace even if bash already ended: its group may still hold descendants.
    this.#graceTimer = setTimeout(() => signalGroup(this.#pgid!, 'SIGKILL'), this.#task.graceMs);
    this.#graceTimer.unref();
  }

  /** Waits a bounded time for the output pipes to reach end-of-file: a descendant may hold them open forever. */
  async #drain(): Promise<void> {
    const deadline = Date.now() + this.#task.drainMs;
    let pause = 1;
    while (!binding.readersDone(this.#task.captureId) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, 20);
    }
  }

  /** Ends the lifeline: the runner then kills every descendant left, and exits. */
  #release(): void {
    clearTimeout(this.#graceTimer);
    this.#lifeline?.destroy();
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the whole group has already ended.
  }
}

async function spawnFailure(child: PromiseLike<{ message?: string; originalMessage?: string }>): Promise<string> {
  const result = await child;
  return result.originalMessage || result.message || 'shellring-runner could not be started';
}
