// The jobs API for observers and people: list, follow by offset, events, a person's kill and a person's typing.
import type { JobRegistry } from '../jobs/registry.js';
import type { FollowRead, JobEvent, JobInfo } from '../jobs/types.js';
import type { TermScreen } from '../executor/wire/term.js';
import { callErrors, DEFAULT_STOP_REASON } from '../contract/index.js';
import { ShellringError } from '../errors.js';
import { validSize } from '../executor/wire/term.js';

export class JobsView {
  readonly #registry: JobRegistry;

  constructor(registry: JobRegistry) {
    this.#registry = registry;
  }

  list(sessionId?: string): JobInfo[] {
    return this.#registry.list(sessionId);
  }

  /** Reads the job's output from an absolute offset without moving the model's cursor. */
  follow(jobId: string, from = 0, max?: number): FollowRead {
    return this.#registry.follow(jobId, from, max);
  }

  on<T extends JobEvent['type']>(type: T, listener: (event: Extract<JobEvent, { type: T }>) => void): () => void {
    return this.#registry.on(type, listener);
  }

  /** Whether the job's command runs on a terminal (bash with `tty`). */
  hasTerminal(jobId: string): boolean {
    return this.#registry.terminal(jobId)?.tty === true;
  }

  /** A person types into a running terminal job (raw bytes, as a terminal sends them), and the model's next read
   * of the job says so; false when the job has no terminal or has ended. */
  input(jobId: string, bytes: Buffer): boolean {
    const terminal = this.#registry.terminal(jobId);
    if (!terminal?.tty || this.#registry.get(jobId)?.state !== 'running') return false;
    terminal.input(bytes);
    this.#registry.notePersonTyped(jobId, bytes.toString('utf8'));
    return true;
  }

  /** A person's terminal changed size: the job's terminal follows (its program gets SIGWINCH). False when the job
   * has no terminal or has ended; a size outside 2 to 1000 on either side is an error. */
  resize(jobId: string, size: { cols: number; rows: number }): boolean {
    if (!validSize(size)) throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', callErrors.terminalSize(size));
    const terminal = this.#registry.terminal(jobId);
    if (!terminal?.tty || this.#registry.get(jobId)?.state !== 'running') return false;
    terminal.resize(size);
    return true;
  }

  /** A running terminal job's screen as its runner's model holds it; undefined without one. */
  screen(jobId: string, timeoutMs = 2000): Promise<TermScreen | undefined> {
    const terminal = this.#registry.terminal(jobId);
    return terminal?.tty ? terminal.screen(timeoutMs) : Promise.resolve(undefined);
  }

  /** A person stops a job; a foreground call waiting on it reports `[stopped: <reason>]`. */
  kill(jobId: string, reason: string = DEFAULT_STOP_REASON): boolean {
    return this.#registry.kill(jobId, reason, 'person');
  }
}
