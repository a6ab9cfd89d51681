// One `shellring-runner --stdio` over an SSH channel: commands multiplexed by id, each followed as every command is
// (src/executor/runner-life.ts: the runner on the far host keeps its life). The native relay writes each command's
// stdout and stderr frames straight into its capture on a thread of its own (crates/node channel_relay.rs), so tails,
// spill files and rings are made exactly as for a local command and no output byte crosses this thread; a capture
// that falls behind holds up the relay's reads, which backs up the runner's queues, which stop reading the command's
// pipes: the command slows down and memory stays bounded on both ends. This side takes the few other frames (status
// lines, looks, gone) in batches, and carries control lines the other way.
import type { ChildProcess } from 'node:child_process';
import { remoteErrors } from '../../contract/index.js';
import { loadBinding } from '../../native/loader.js';
import type { LaunchControl, LaunchListener } from '../hosts.js';
import type { SupervisorResult, SupervisorTask } from '../protocol.js';
import { RunnerLife } from '../runner-life.js';
import type { Found } from '../silence-watch.js';
import { lifeLine } from '../wire/control.js';
import { encodeFrame, isKind, type Frame, type FrameKind } from '../wire/frames.js';
import { bashArguments, encode } from '../wire/request.js';
import { parse as parseStatus } from '../wire/status.js';
import { remoteWaiting } from './proc-snapshot.js';

/** The control of a command that never reached its runner: nothing to signal. */
const UNSTARTED: LaunchControl = { kill: () => {}, release: () => {}, end: () => {}, send: () => {} };
/** After the channel's stdin ended, how long its runner gets to end its commands' trees and exit before the ssh client
 * is killed (its end ends the SSH session, and with it the runner's). */
const CLOSE_MS = 2000;

/** One command in flight on the stream. */
interface RemoteCommand {
  life: RunnerLife;
  listener: LaunchListener;
  /** A look sent and not answered yet, and where its finding goes. */
  looking: Found | undefined;
  /** Ends the call should the far end say nothing at all by its timeout. */
  silence: NodeJS.Timeout | undefined;
}

export class RunnerStream {
  readonly #child: ChildProcess;
  readonly #commands = new Map<number, RemoteCommand>();
  readonly #relay: number;
  readonly #label: string;
  readonly #lostText: () => string;
  #next = 1;
  #lost = false;
  /** Why the channel was ended from this side (a far end that does not answer, or garbles), if it was. */
  #ended: string | undefined;
  /** Settles once this side ended the channel. */
  readonly #cut: Promise<void>;
  #markCut!: () => void;
  /** Settles when the channel has ended, for whatever reason, and the relay has handed over its last frame. */
  readonly ended: Promise<void>;

  /** `child` runs `shellring-runner --stdio` on the far side with a piped stdin and its stdout into the pipe whose
   * read end is `stdout` (the relay owns it from now on); `lostText` is the one line a command in flight reads if the
   * channel ends under it. */
  constructor(child: ChildProcess, stdout: number, label: string, lostText: () => string) {
    this.#child = child;
    this.#label = label;
    this.#lostText = lostText;
    this.#relay = loadBinding().relayStart(stdout);
    child.stdin!.on('error', () => {});
    // Closed: exited, and its stderr read to the end (its last line completes the lost line). A channel this side cut
    // waits for neither its pipes nor its relay: the connection's master holds copies of both until it ends.
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    this.#cut = new Promise((resolve) => (this.#markCut = resolve));
    const ends = [Promise.race([closed, this.#cut.then(() => exited)]), Promise.race([this.#receive(), this.#cut])];
    this.ended = Promise.all(ends).then(() => this.#lose());
  }

  get alive(): boolean {
    return !this.#lost && this.#ended === undefined;
  }

  /** Commands in flight. */
  get load(): number {
    return this.#commands.size;
  }

  start(task: SupervisorTask, listener: LaunchListener): LaunchControl {
    const id = this.#next++;
    let body: Buffer | undefined;
    let refused: string | undefined = this.alive ? undefined : this.#lostText();
    try {
      const bash = bashArguments(task.command, task.stdin);
      // The fork server's request, without its length: the frame carries that.
      const { cwd, plan, env, terminal } = task;
      body = encode({ cwd, plan, command: bash.command, env, terminal, stdin: bash.stdin }).subarray(4);
    } catch (error) {
      refused ??= error instanceof Error ? error.message : String(error);
    }
    if (refused !== undefined || body === undefined) {
      failAlone(task, listener, refused ?? '');
      return UNSTARTED;
    }
    loadBinding().relayRoute(this.#relay, id, task.captureId);
    // The terms in the same write as the request: the runner has them before bash starts.
    if (this.alive) this.#child.stdin!.write(Buffer.concat([encodeFrame('start', id, body), encodeFrame('control', id, Buffer.from(lifeLine(task)))]));
    const command = this.#follow(id, task, listener);
    // A far end that never answers (a runner that does not run, a stream it garbles) ends the call at its timeout.
    command.silence = setTimeout(() => this.#silent(id, task.timeoutMs), task.timeoutMs);
    return {
      kill: (cause) => command.life.kill(cause),
      release: () => this.#send('release', id),
      end: () => {
        command.life.ending();
        this.#send('release', id);
      },
      // A terminal job's lines go as any control line: the runner on the far host keeps the terminal.
      send: (line) => command.life.control(line),
    };
  }

  /** Ends the channel: the runner drops every lifeline it holds; a runner that does not exit in time goes with the
   * ssh client. */
  close(): void {
    this.#child.stdin!.end();
    const kill = setTimeout(() => this.#end(this.#lostText()), CLOSE_MS);
    void this.ended.then(() => clearTimeout(kill));
  }

  #follow(id: number, task: SupervisorTask, listener: LaunchListener): RemoteCommand {
    const command: RemoteCommand = { listener, looking: undefined, silence: undefined } as RemoteCommand;
    command.life = new RunnerLife(
      task,
      {
        control: (line) => this.#send('control', id, Buffer.from(line)),
        // The relay wrote every output frame before the line that says the output is over.
        outputOver: async () => {
          loadBinding().relayUnroute(this.#relay, id);
          try {
            loadBinding().finish(task.captureId);
          } catch {
            // The handle was released first: its capture is gone and takes nothing more.
          }
        },
        runnerGone: async () => {},
        look: (found) => {
          command.looking = found;
          this.#send('look', id);
        },
        tellsOutputEnded: false,
      },
      { waiting: listener.waiting, deadline: listener.deadline, screen: listener.screen },
    );
    this.#commands.set(id, command);
    void command.life.result.then((result) => listener.result(this.#released(id, result)));
    return command;
  }

  /** A killed command leaves nothing behind here: what escaped its group (setsid, a double fork) ends with its runner
   * at once. */
  #released(id: number, result: SupervisorResult): SupervisorResult {
    if (result.kind !== 'ended' || !result.cause) return result;
    this.#send('release', id);
    return { ...result, leftover: 0 };
  }

  #send(kind: FrameKind, id: number, payload?: Buffer): void {
    if (this.alive) this.#child.stdin!.write(encodeFrame(kind, id, payload));
  }

  /** Takes the relay's frames until the channel ends. */
  async #receive(): Promise<void> {
    const binding = loadBinding();
    try {
      for (let batch = await binding.relayNext(this.#relay); batch; batch = await binding.relayNext(this.#relay)) {
        for (const frame of batch) this.#dispatch(frame);
      }
    } catch (error) {
      // A corrupt stream cannot be resynchronised: end it, which fails what it carries.
      this.#end(remoteErrors.garbled(this.#label, error instanceof Error ? error.message : String(error)));
    }
  }

  #dispatch(frame: Frame): void {
    const { id, payload } = frame;
    const command = this.#commands.get(id);
    if (!command) return;
    clearTimeout(command.silence);
    if (isKind(frame, 'status')) return command.life.feed(parseStatus(payload.toString('utf8')));
    if (isKind(frame, 'look')) {
      const found = command.looking;
      command.looking = undefined;
      return found?.(remoteWaiting(payload) ?? null);
    }
    if (isKind(frame, 'gone')) {
      this.#commands.delete(id);
      command.life.feed({ type: 'eof' });
      void command.life.result.then(() => command.listener.gone());
    }
  }

  /** The far end said nothing of this command by its timeout: the call ends, and so does the channel, which no
   * later call could trust. */
  #silent(id: number, ms: number): void {
    const command = this.#commands.get(id);
    if (!command) return;
    this.#commands.delete(id);
    command.life.fail({ error: remoteErrors.noAnswer(this.#label, ms), runnerFailed: false });
    command.listener.gone();
    this.#end(this.#lostText());
  }

  /** Ends the channel from this side; its commands in flight fail with `why`. */
  #end(why: string): void {
    this.#ended ??= why;
    this.#child.kill('SIGKILL');
    this.#markCut();
  }

  /** The channel ended: every command in flight fails with the host's line (a command that ended meanwhile keeps its
   * result); its processes there end with their lifelines (the runner drops them all when its stdin ends). */
  #lose(): void {
    this.#lost = true;
    for (const [id, command] of this.#commands) {
      this.#commands.delete(id);
      clearTimeout(command.silence);
      command.life.lost(this.#ended ?? this.#lostText());
      void command.life.result.then(() => command.listener.gone());
    }
  }
}

/** A command that cannot go on this stream: it fails as a local one that could not start, its reason once on stderr. */
export function failAlone(task: SupervisorTask, listener: LaunchListener, error: string): void {
  try {
    loadBinding().write(task.captureId, 1, Buffer.from(`${error}\n`));
    loadBinding().finish(task.captureId);
  } catch {
    // The handle was released first.
  }
  listener.result({ kind: 'failed', error, runnerFailed: false });
  listener.gone();
}
