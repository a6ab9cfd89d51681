// What every executor does on this side, wherever its commands run: resolves requests (defaults, caps, the
// environment policy), opens each command's capture and spill place, hands the command to its hosts, keeps the live
// ones per session and ends them when their session or the executor closes. An executor adds where its commands run.
import { resolve as resolvePath } from 'node:path';
import { nativeBackend } from '../capture/native.js';
import type { CaptureBackend } from '../capture/types.js';
import { childEnv } from '../env/child-env.js';
import { EnvFilter } from '../env/policy.js';
import { HostEnv } from '../env/host-env.js';
import { executorErrors, MAX_COMMAND_BYTES, type CommandLimits } from '../contract/index.js';
import type { ExecutorConfig } from './config.js';
import { Launch, type CommandHosts } from './launch.js';
import type { AtTimeout } from './protocol.js';
import { SpillDirs } from './spill-dirs.js';
import type { ExecRequest, ExecSpec, Executor, ExecutorStats, ProcessHandle, RunResult, SpillRead } from './types.js';
import { readSpillFile } from './read-spill.js';
import type { HeldSandbox } from './session-sandboxes.js';
import { StartedCommand } from './handle.js';
import type { SpillContext } from './stream-result.js';
import { ShellringError } from '../errors.js';
import type { ConfinementPlan } from './wire/plan.js';

/** How long closing waits for the commands it ends: their supervisors sweep a runner still there after 500 ms, so
 * only a wedged worker outlasts this (its runners end with their lifelines when the worker goes). */
const END_WAIT_MS = 1500;

/** Where one command runs: its runner's plan, and the session sandbox it runs in (released when it is gone). */
export interface Placement {
  plan: ConfinementPlan;
  held?: HeldSandbox;
}

export abstract class ExecutorBase implements Executor {
  readonly config: ExecutorConfig;
  readonly spills: SpillDirs;
  /** Where every command's output goes; the job registry and the tools read it from here. */
  readonly capture: CaptureBackend = nativeBackend;
  /** What supervises the commands: worker threads here, or remote hosts. */
  protected readonly hosts: CommandHosts;
  readonly #runnerPath: string;
  readonly #env: HostEnv;
  readonly #launches = new Set<Launch>();
  readonly #bySession = new Map<string, Set<Launch>>();
  /** Handles whose spec or placement is still being prepared, with their session's key. */
  readonly #preparing = new Map<StartedCommand, string>();
  #closed = false;
  /** Output of released commands, for metrics: every byte written, and the bytes that went to spill files. */
  readonly #output = { capturedBytes: 0, spilledBytes: 0 };
  readonly #count = (captured: number, spilled: number) => {
    this.#output.capturedBytes += captured;
    this.#output.spilledBytes += spilled;
  };

  /** `hosts` makes what supervises the commands, once the spill root exists (a bad one fails first, with nothing
   * started); `runnerPath`: the runner the hosts start each command through (a remote host's is its own). */
  protected constructor(config: ExecutorConfig, hosts: () => CommandHosts, runnerPath: string) {
    this.config = config;
    this.spills = new SpillDirs(config.spillRoot, config.keepSpills);
    this.#env = new HostEnv(new EnvFilter(config.env));
    this.hosts = hosts();
    this.#runnerPath = runnerPath;
  }

  get cwd(): string | undefined {
    return this.config.cwd;
  }

  get commandLimits(): CommandLimits {
    const { timeoutMs, maxTimeoutMs, maxOutputBytes } = this.config;
    return { timeoutMs, maxTimeoutMs, maxOutputBytes };
  }

  abstract closeSession(sessionId: string | undefined): Promise<void>;
  abstract close(): Promise<void>;

  /** Where one command runs: its runner's flags, at once or once something there is ready (a session sandbox). */
  protected abstract place(spec: ExecSpec): Placement | Promise<Placement>;

  /** Applies defaults and caps; throws a clear error on a bad request. */
  resolve(request: ExecRequest): ExecSpec {
    const { config } = this;
    if (typeof request?.command !== 'string' || !request.command.trim()) {
      throw invalid(executorErrors.command);
    }
    // A command over the one-argument limit reaches bash on its stdin (see wire/request.ts): not when the
    // caller's own stdin takes that place.
    if (request.stdin !== undefined) {
      const bytes = Buffer.byteLength(request.command, 'utf8');
      if (bytes > MAX_COMMAND_BYTES) throw invalid(executorErrors.commandTooLong(bytes));
    }
    if (request.timeoutMs !== undefined && !(typeof request.timeoutMs === 'number' && request.timeoutMs > 0)) {
      throw invalid(executorErrors.timeoutMs(request.timeoutMs));
    }
    if (request.workdir !== undefined && (typeof request.workdir !== 'string' || !request.workdir)) {
      throw invalid(executorErrors.workdir(request.workdir));
    }
    const stdoutMaxBytes = request.stdoutMaxBytes ?? config.maxOutputBytes;
    if (!Number.isInteger(stdoutMaxBytes) || stdoutMaxBytes < 0) {
      throw invalid(executorErrors.stdoutMaxBytes(stdoutMaxBytes));
    }
    const base = config.cwd ?? process.cwd();
    return {
      command: request.command,
      workdir: resolvePath(base, request.workdir ?? base),
      timeoutMs: Math.min(Math.ceil(request.timeoutMs ?? config.timeoutMs), config.maxTimeoutMs),
      stdoutMaxBytes,
      stderrMaxBytes: config.maxOutputBytes,
      maxSpillBytes: config.maxSpillBytes,
      graceMs: config.graceMs,
      env: terminalEnv(childEnv(this.#env, sandboxed(request), request.env, request.dshEnv), request.terminal !== undefined),
      stdin: request.stdin,
      signal: request.signal,
      sessionId: request.sessionId,
      sandbox: request.sandboxPolicy,
      ...(request.terminal ? { terminal: request.terminal } : {}),
    };
  }

  /** Resolves on exit, timeout or abort; rejects only when the command could not run at all. */
  async run(spec: ExecSpec): Promise<RunResult> {
    if (spec.signal?.aborted) return abortedBeforeStart(spec.timeoutMs);
    const handle = this.#launch(spec, 'kill', false);
    const onAbort = () => handle.abort();
    // Listening before onStart: an abort that onStart itself causes must not be missed.
    spec.signal?.addEventListener('abort', onAbort, { once: true });
    spec.onStart?.(handle);
    try {
      const outcome = await handle.done;
      await handle.spillPlaced;
      const sandbox = handle.sandboxFacts();
      if (outcome.error !== undefined && !sandbox?.runnerFailed) {
        throw new ShellringError('SHELLRING_SPAWN_FAILED', outcome.error);
      }
      return {
        exitCode: outcome.exitCode,
        signal: outcome.signal,
        timedOut: handle.cause === 'timeout',
        aborted: handle.cause === 'abort',
        timeoutMs: spec.timeoutMs,
        ...handle.streams(),
        ...(sandbox ? { sandbox } : {}),
        ...(outcome.leftover ? { leftover: outcome.leftover } : {}),
        ...(outcome.supervisionEnded ? { supervisionEnded: outcome.supervisionEnded } : {}),
        ...(outcome.leftoverEnded ? { leftoverEnded: true } : {}),
        ...(outcome.ended ? { ended: outcome.ended } : {}),
        ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      };
    } finally {
      spec.signal?.removeEventListener('abort', onAbort);
      handle.release();
    }
  }

  /** Starts a command and returns its handle at once; its deadline is reported, not enforced. Never throws for a
   * spawn failure. */
  start(spec: ExecSpec, options: { ring?: boolean } = {}): ProcessHandle {
    return this.#launch(spec, 'report', options.ring ?? false);
  }

  /**
   * Starts, as `start` does, a command whose spec is still being prepared (a sandbox probe, say): the handle and
   * its capture exist at once, with the configured output caps and `sessionId`'s spill place, and the command
   * starts when `spec` resolves. A preparation that rejects settles the handle as failed with its message; a kill
   * first settles it as killed, and nothing is started for it.
   */
  startWhenReady(spec: Promise<ExecSpec>, options: { sessionId?: string; ring?: boolean; terminal?: boolean } = {}): ProcessHandle {
    if (this.#closed) {
      // Nothing will follow this preparation: its failure must not surface as an unhandled rejection.
      spec.catch(() => undefined);
      throw new ShellringError('SHELLRING_CLOSED', executorErrors.closed);
    }
    const { maxOutputBytes, maxSpillBytes } = this.config;
    const caps = { stdoutMaxBytes: maxOutputBytes, stderrMaxBytes: maxOutputBytes, maxSpillBytes };
    const handle = this.#open({ ...caps, sessionId: options.sessionId }, options.ring ?? false, options.terminal ?? false);
    const key = options.sessionId ?? '';
    this.#preparing.set(handle, key);
    void spec.then(
      (ready) => {
        this.#preparing.delete(handle);
        if (handle.waiting) this.#begin(handle, ready, 'report');
      },
      (error: unknown) => {
        this.#preparing.delete(handle);
        if (handle.waiting) handle.fail(error instanceof Error ? error.message : String(error));
      },
    );
    return handle;
  }

  /** Kills what the session still runs, descendants included (its spill files are the executor's to remove, once
   * the rest of the session is gone). */
  protected async endSession(sessionId: string | undefined): Promise<void> {
    const key = sessionId ?? '';
    for (const [handle, owner] of this.#preparing) if (owner === key) handle.kill();
    const launches = this.#bySession.get(key);
    this.#bySession.delete(key);
    if (launches) await this.#end([...launches]);
  }

  /** Refuses new commands and kills everything still running. */
  protected async endAll(): Promise<void> {
    this.#closed = true;
    for (const handle of this.#preparing.keys()) handle.kill();
    await this.#end([...this.#launches]);
  }

  /** Output totals of released commands, and the hosts' share of time busy since start (0..1). */
  stats(): ExecutorStats {
    return { ...this.#output, poolUtilization: this.hosts.utilization };
  }

  readSpill(path: string): Promise<SpillRead> {
    return readSpillFile(this.spills.root, path);
  }

  #launch(spec: ExecSpec, atTimeout: AtTimeout, ring: boolean): StartedCommand {
    if (this.#closed) throw new ShellringError('SHELLRING_CLOSED', executorErrors.closed);
    const handle = this.#open(spec, ring, spec.terminal !== undefined);
    this.#begin(handle, spec, atTimeout);
    return handle;
  }

  /** A handle with a fresh capture for the session's command, counted at release. */
  #open(
    caps: Pick<ExecSpec, 'stdoutMaxBytes' | 'stderrMaxBytes' | 'maxSpillBytes' | 'sessionId'>,
    ring: boolean,
    terminal: boolean,
  ): StartedCommand {
    const { sessionId } = caps;
    const used = this.spills.used(sessionId, this.capture);
    const place = this.spills.dirFor(sessionId);
    const spillCap = Math.max(0, Math.min(caps.maxSpillBytes, this.config.sessionSpillQuota - used));
    const captureId = this.capture.create({
      stdoutCap: caps.stdoutMaxBytes,
      stderrCap: caps.stderrMaxBytes,
      spillDir: place.dir,
      spillCap,
      ring: ring || undefined,
    });
    this.spills.opened(sessionId, captureId);
    const spill: SpillContext = { cap: spillCap, quotaBound: spillCap < caps.maxSpillBytes };
    const handle = new StartedCommand(this.capture, captureId, spill, terminal);
    handle.spillPlaced = place.made.then((problem) => {
      if (problem !== undefined) spill.noDir = problem;
    });
    handle.onRelease = (captured, spilled) => {
      this.#count(captured, spilled);
      this.spills.released(sessionId, captureId, spilled);
    };
    return handle;
  }

  /** Hands the command to its hosts once the executor has placed it (at once, or once its session sandbox is
   * ready); its runner enters the workdir, and reports one it cannot enter. */
  #begin(handle: StartedCommand, spec: ExecSpec, atTimeout: AtTimeout): void {
    // A command whose preparation outlived the executor: close() has ended every handle still preparing.
    if (this.#closed) return handle.fail(executorErrors.closed, spec.sandbox);
    const placement = this.place(spec);
    if (!(placement instanceof Promise)) return this.#dispatch(handle, spec, atTimeout, placement);
    this.#preparing.set(handle, spec.sessionId ?? '');
    void placement.then(
      (placed) => {
        this.#preparing.delete(handle);
        if (handle.waiting && !this.#closed) this.#dispatch(handle, spec, atTimeout, placed);
        else placed.held?.release();
      },
      (error: unknown) => {
        this.#preparing.delete(handle);
        if (handle.waiting) handle.fail(error instanceof Error ? error.message : String(error), spec.sandbox);
      },
    );
  }

  #dispatch(handle: StartedCommand, spec: ExecSpec, atTimeout: AtTimeout, { plan, held }: Placement): void {
    const launch = new Launch(this.hosts, {
      captureId: handle.captureId,
      command: spec.command,
      cwd: spec.workdir,
      env: spec.env,
      stdin: spec.stdin,
      timeoutMs: spec.timeoutMs,
      atTimeout,
      graceMs: spec.graceMs,
      drainMs: this.config.drainMs,
      runnerPath: this.#runnerPath,
      plan,
      sessionId: spec.sessionId,
      ...(held ? { serverSocket: held.socket } : {}),
      ...(spec.terminal ? { terminal: spec.terminal } : {}),
    });
    if (held) void launch.gone.then(held.release);
    const key = spec.sessionId ?? '';
    const session = this.#bySession.get(key) ?? new Set<Launch>();
    this.#bySession.set(key, session);
    this.#launches.add(launch);
    session.add(launch);
    launch.gone.then(() => {
      this.#launches.delete(launch);
      session.delete(launch);
    });
    handle.launch(launch, spec.sandbox);
  }

  /** The supervisors end the commands: every signal and sweep is theirs, none is sent from this thread. */
  async #end(launches: Launch[]): Promise<void> {
    await within(Promise.all(launches.map((launch) => launch.end())), END_WAIT_MS);
  }
}

function abortedBeforeStart(timeoutMs: number): RunResult {
  const empty = { text: '', truncated: false };
  return { exitCode: null, signal: null, timedOut: false, aborted: true, timeoutMs, stdout: empty, stderr: { ...empty } };
}

function invalid(message: string): Error {
  return new ShellringError('SHELLRING_INVALID_REQUEST', message);
}

/** True when the promise settled within `ms`. */
export async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]);
  clearTimeout(timer);
  return settled;
}

/** Confined by a sandbox mode narrower than full access: agent sockets stay out of its environment. */
function sandboxed(request: ExecRequest): boolean {
  const mode = request.sandboxPolicy?.mode;
  return mode !== undefined && mode !== 'danger-full-access';
}

/** A command on a terminal is told what the runner's screen model understands (the pipes' `dumb` would have it
 * draw nothing). */
function terminalEnv(env: Record<string, string>, terminal: boolean): Record<string, string> {
  if (terminal) env.TERM = 'xterm-256color';
  return env;
}
