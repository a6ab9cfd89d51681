// Admission of commands: a cap on commands running at once per session and for the whole instance.
import { admissionErrors } from '../../contract/index.js';
import type { Runtime } from '../../runtime/runtime.js';
import type { Refusal } from './observer.js';

export interface CommandLimits {
  /** Commands running at once in one session (foreground calls plus live background jobs). Default 16. */
  maxCommandsPerSession?: number;
  /** Commands running at once across every session of this instance. Default 512. */
  maxCommands?: number;
}

export const DEFAULT_MAX_COMMANDS_PER_SESSION = 16;
export const DEFAULT_MAX_COMMANDS = 512;

/** A command refused at a cap: which cap (as the refusal metric counts it), and the model's words for it. */
export interface CommandRefusal {
  cap: Extract<Refusal, 'session-commands' | 'instance-commands'>;
  message: string;
}

/** Counts what runs: bash calls in flight (by session) and background jobs still running, which outlive their call. */
export class CommandCounter {
  readonly #runtime: Runtime;
  readonly #perSession: number;
  readonly #total: number;
  readonly #inFlight = new Map<string, number>();
  #inFlightTotal = 0;

  constructor(runtime: Runtime, limits: CommandLimits) {
    this.#runtime = runtime;
    this.#perSession = limits.maxCommandsPerSession ?? DEFAULT_MAX_COMMANDS_PER_SESSION;
    this.#total = limits.maxCommands ?? DEFAULT_MAX_COMMANDS;
  }

  /** The cap one more bash command would pass, with its refusal; undefined admits it. */
  admit(sessionId: string, tool: string): CommandRefusal | undefined {
    if (tool !== 'bash') return undefined;
    if (this.#running(sessionId) >= this.#perSession) return { cap: 'session-commands', message: admissionErrors.sessionLimit(this.#perSession) };
    if (this.#running() >= this.#total) return { cap: 'instance-commands', message: admissionErrors.instanceLimit(this.#total) };
    return undefined;
  }

  started(sessionId: string): void {
    this.#inFlight.set(sessionId, (this.#inFlight.get(sessionId) ?? 0) + 1);
    this.#inFlightTotal += 1;
  }

  ended(sessionId: string): void {
    const left = (this.#inFlight.get(sessionId) ?? 1) - 1;
    if (left > 0) this.#inFlight.set(sessionId, left);
    else this.#inFlight.delete(sessionId);
    this.#inFlightTotal = Math.max(0, this.#inFlightTotal - 1);
  }

  #running(sessionId?: string): number {
    const calls = sessionId === undefined ? this.#inFlightTotal : (this.#inFlight.get(sessionId) ?? 0);
    // A job a foreground call still waits on is that call's own command: count it once.
    const jobs = (this.#runtime.jobs?.list(sessionId) ?? []).filter(
      (job) => (job.state === 'running' || job.state === 'stopping') && !job.foreground,
    ).length;
    return calls + jobs;
  }
}
