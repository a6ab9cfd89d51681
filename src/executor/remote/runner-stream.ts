// One `shellring-runner --stdio` over an SSH channel: commands multiplexed by id. The native relay writes each
// command's stdout and stderr frames straight into its capture on a thread of its own (crates/node channel_relay.rs),
// so tails, spill files and rings are made exactly as for a local command and no output byte crosses this thread; a
// capture that falls behind holds up the relay's reads, which backs up the runner's queues, which stop reading the
// command's pipes: the command slows down and memory stays bounded on both ends. This side takes the few other
// frames (status, output over, gone) in batches.
import type { ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { runnerFailure } from '../../contract/index.js';
import { loadBinding } from '../../native/loader.js';
import { bashArguments, chdirFailure, encode, parse as parseStatus } from '../runner-request.js';
import type { LaunchControl, LaunchListener } from '../hosts.js';
import type { KillCause, SupervisorResult, SupervisorTask } from '../protocol.js';
import { encodeFrame, FRAME, FrameReader, type Frame } from './frames.js';
import { watchSilence, type Found } from '../silence-watch.js';
import { remoteWaiting } from './proc-snapshot.js';

/** Why a command failed, as its result will say. */
type Failure = Omit<Extract<SupervisorResult, { kind: 'failed' }>, 'kind'>;

/** The control of a command that never reached its runner: nothing to signal. */
const UNSTARTED: LaunchControl = { kill: () => {}, release: () => {}, end: () => {} };

const binding = loadBinding();

/** One command in flight on the stream. */
class RemoteCommand {
  readonly task: SupervisorTask;
  readonly listener: LaunchListener;
  cause: KillCause | undefined;
  started: { enforcement: string } | undefined;
  ended: { exitCode: number | null; signal: string | null } | undefined;
  failure: Failure | undefined;
  timers: NodeJS.Timeout[] = [];
  /** Stops the silence watch, once the command has started. */
  unwatch: (() => void) | undefined;
  settled = false;
  /** A look sent and not answered yet, and where its finding goes. */
  looking: Found | undefined;

  constructor(task: SupervisorTask, listener: LaunchListener) {
    this.task = task;
    this.listener = listener;
  }

  clearTimers(): void {
    for (const timer of this.timers.splice(0)) clearTimeout(timer);
    this.unwatch?.();
  }
}

export class RunnerStream {
  readonly #child: ChildProcess;
  readonly #commands = new Map<number, RemoteCommand>();
  readonly #reader = new FrameReader();
  readonly #relay: number;
  readonly #lostText: () => string;
  #next = 1;
  #lost = false;
  /** Settles when the channel has ended, for whatever reason, and the relay has handed over its last frame. */
  readonly ended: Promise<void>;

  /** `child` runs `shellring-runner --stdio` on the far side with a piped stdin and its stdout into the pipe whose
   * read end is `stdout` (the relay owns it from now on); `lostText` is the one line a command in flight reads if the
   * channel ends under it. */
  constructor(child: ChildProcess, stdout: number, lostText: () => string) {
    this.#child = child;
    this.#lostText = lostText;
    this.#relay = binding.relayStart(stdout);
    child.stdin!.on('error', () => {});
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    this.ended = Promise.all([exited, this.#receive()]).then(() => this.#lose());
  }

  get alive(): boolean {
    return !this.#lost;
  }

  /** Commands in flight. */
  get load(): number {
    return this.#commands.size;
  }

  start(task: SupervisorTask, listener: LaunchListener): LaunchControl {
    const id = this.#next++;
    const command = new RemoteCommand(task, listener);
    if (this.#lost) {
      this.#commands.set(id, command);
      this.#fail(id, command, this.#lostText());
      return UNSTARTED;
    }
    let body: Buffer;
    try {
      const bash = bashArguments(task.command, task.stdin);
      // The fork server's request, without its length: the frame carries that.
      body = encode({ cwd: task.cwd, plan: task.plan, command: bash.command, env: task.env, stdin: bash.stdin }).subarray(4);
    } catch (error) {
      this.#commands.set(id, command);
      this.#fail(id, command, error instanceof Error ? error.message : String(error));
      return UNSTARTED;
    }
    this.#commands.set(id, command);
    binding.relayRoute(this.#relay, id, task.captureId);
    this.#send(FRAME.start, id, body);
    return {
      kill: (cause) => this.#kill(id, cause),
      release: () => this.#send(FRAME.release, id),
      end: () => this.#end(id),
    };
  }

  /** Ends the channel: the runner drops every lifeline it holds. */
  close(): void {
    this.#child.stdin!.end();
  }

  #send(kind: number, id: number, payload?: Buffer): void {
    if (!this.#lost) this.#child.stdin!.write(encodeFrame(kind, id, payload));
  }

  /** TERM to the group now, KILL after the grace (the runner sends SIGCONT with each). */
  #kill(id: number, cause: KillCause): void {
    const command = this.#commands.get(id);
    if (!command || command.cause || command.ended) return;
    command.cause = cause;
    this.#send(FRAME.signal, id, Buffer.from(String(constants.signals.SIGTERM)));
    command.timers.push(setTimeout(() => this.#send(FRAME.signal, id, Buffer.from(String(constants.signals.SIGKILL))), command.task.graceMs));
  }

  /** At once, no grace: what a closing session ran may not outlive its close (the release ends its strays). */
  #end(id: number): void {
    const command = this.#commands.get(id);
    if (!command) return;
    this.#send(FRAME.signal, id, Buffer.from(String(constants.signals.SIGKILL)));
    this.#send(FRAME.release, id);
  }

  /** Takes the relay's frames until the channel ends. */
  async #receive(): Promise<void> {
    try {
      for (let batch = await binding.relayNext(this.#relay); batch; batch = await binding.relayNext(this.#relay)) {
        for (const frame of this.#reader.push(batch)) this.#dispatch(frame);
      }
    } catch {
      // A corrupt stream cannot be resynchronised: end it, which fails what it carries.
      this.#child.kill('SIGKILL');
    }
  }

  #dispatch({ kind, id, payload }: Frame): void {
    const command = this.#commands.get(id);
    if (!command) return;
    if (kind === FRAME.status) return this.#status(id, command, payload.toString('utf8'));
    if (kind === FRAME.outputOver) return this.#settle(id, command, Number(payload.toString('latin1')) || 0);
    if (kind === FRAME.look) {
      const found = command.looking;
      command.looking = undefined;
      return found?.(remoteWaiting(payload) ?? null);
    }
    if (kind === FRAME.gone) {
      this.#commands.delete(id);
      command.clearTimers();
      // Gone without a settled result: the runner ended before its output did (it cannot happen on a sound stream).
      this.#settle(id, command, 0);
      command.listener.gone();
    }
  }

  #status(id: number, command: RemoteCommand, line: string): void {
    const event = parseStatus(line);
    if (event.type === 'started') {
      command.started = { enforcement: event.enforcement };
      // The command's one deadline, counted from the start of bash as a local supervisor counts it.
      const { timeoutMs, atTimeout } = command.task;
      command.timers.push(setTimeout(() => (atTimeout === 'kill' ? this.#kill(id, 'timeout') : command.listener.deadline()), timeoutMs));
      // What it waits on once silent, from the runner's look at the host's /proc (the watch keeps one in flight).
      const look = (found: Found) => {
        command.looking = found;
        this.#send(FRAME.look, id);
      };
      command.unwatch = watchSilence(command.task.captureId, () => command.cause !== undefined, look, command.listener.waiting);
      return;
    }
    if (event.type === 'exit' || event.type === 'signal') {
      command.ended = event.type === 'exit' ? { exitCode: event.code, signal: null } : { exitCode: null, signal: event.signal };
      command.clearTimers();
      // A descendant may hold the pipes open for ever: after the drain bound the runner stops forwarding them.
      command.timers.push(setTimeout(() => this.#send(FRAME.drained, id), command.task.drainMs));
      return;
    }
    if (event.type === 'workdir') command.failure = { error: chdirFailure(event.errno, command.task.cwd), runnerFailed: false };
    else if (event.type === 'error') command.failure = { error: runnerFailure(event.code, event.message), runnerFailed: true, ...(event.code ? { code: event.code } : {}) };
  }

  /** The output is over (the relay wrote all of it before the frame that says so): the capture finishes and the
   * result goes out once. */
  #settle(id: number, command: RemoteCommand, leftover: number): void {
    if (command.settled) return;
    command.settled = true;
    command.clearTimers();
    binding.relayUnroute(this.#relay, id);
    const { captureId } = command.task;
    const failure = command.failure ?? (command.ended ? undefined : { error: this.#lostText(), runnerFailed: false });
    try {
      // Readable once on stderr, as a local failure is, for handles that never reject.
      if (failure && !command.cause) binding.write(captureId, 1, Buffer.from(`${failure.error}\n`));
      binding.finish(captureId);
    } catch {
      // The handle was released first: its capture is gone and takes nothing more.
    }
    // A killed command leaves nothing behind: what escaped its group (setsid, a double fork) ends with its runner.
    if (command.cause && command.ended) this.#send(FRAME.release, id);
    command.listener.result(this.#result(command, failure, command.cause ? 0 : leftover));
  }

  #result(command: RemoteCommand, failure: Failure | undefined, leftover: number): SupervisorResult {
    const cause = command.cause ?? null;
    const enforcement = command.started?.enforcement ?? 'none';
    if (command.ended) return { kind: 'ended', ...command.ended, cause, enforcement, leftover };
    if (cause && !command.failure) return { kind: 'ended', exitCode: null, signal: 'SIGKILL', cause, enforcement, leftover: 0 };
    return { kind: 'failed', ...failure! };
  }

  /** The channel ended: every command in flight fails with the host's line, its processes there end with their
   * lifelines (the runner drops them all when its stdin ends). */
  #lose(): void {
    this.#lost = true;
    for (const [id, command] of this.#commands) this.#fail(id, command, this.#lostText());
  }

  #fail(id: number, command: RemoteCommand, error: string): void {
    if (!command.failure && !command.ended) command.failure = { error, runnerFailed: false };
    command.cause = undefined;
    this.#commands.delete(id);
    this.#settle(id, command, 0);
    command.listener.gone();
  }
}
