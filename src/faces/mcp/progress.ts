// Progress notifications for a tool call whose request carries a progress token: one at least every interval while
// the call runs, so a client that resets its request timeout on progress does not abandon a long command.
import { progressMessage } from '../../contract/index.js';
import { ShellringError } from '../../errors.js';

/** Clients are promised a notification at least every 20 s; 15 s leaves room for a busy event loop. */
export const DEFAULT_PROGRESS_INTERVAL_MS = 15_000;
export const MAX_PROGRESS_INTERVAL_MS = 20_000;

export type ProgressToken = string | number;

/** The notification as both revisions' SDKs send it (`sendNotification` of a request handler's context). */
export interface ProgressNotification {
  method: 'notifications/progress';
  params: { progressToken: ProgressToken; progress: number; message: string };
}

export interface CallProgressOptions {
  /** The request's `_meta.progressToken`. */
  token: ProgressToken;
  /** Sends one notification on the call's own stream. A failure is ignored: the call goes on without it. */
  send: (notification: ProgressNotification) => Promise<void> | void;
  /** Default DEFAULT_PROGRESS_INTERVAL_MS. */
  intervalMs?: number;
  /** Milliseconds; default Date.now. */
  clock?: () => number;
}

export interface CallProgress {
  /** Given once the call's command starts: reads how many bytes it has written so far. */
  readonly watch: (bytesSoFar: () => number) => void;
  /** Ends the notifications; call it before the result is sent, so none follows the result. */
  stop(): void;
}

/** A progress interval in milliseconds, or the reason it is unusable. */
export function checkProgressInterval(value: unknown): number {
  if (value === undefined) return DEFAULT_PROGRESS_INTERVAL_MS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_PROGRESS_INTERVAL_MS) {
    throw new ShellringError(
      'SHELLRING_INVALID_CONFIG',
      `invalid progressIntervalMs: expected a whole number of milliseconds from 1 to ${MAX_PROGRESS_INTERVAL_MS}, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/**
 * Starts the notifications of one call. `progress` is the seconds since the call started (it must increase with
 * every notification, which the output's byte count need not do while a command is silent); the message says the
 * bytes of output so far.
 */
export function followProgress(options: CallProgressOptions): CallProgress {
  const clock = options.clock ?? Date.now;
  const started = clock();
  let read: (() => number) | undefined;
  let last = 0;
  let bytes: number | undefined;
  const tick = () => {
    const elapsed = clock() - started;
    last = Math.max(last + 0.001, Math.round(elapsed) / 1000);
    const notification: ProgressNotification = {
      method: 'notifications/progress',
      params: { progressToken: options.token, progress: last, message: progressMessage((bytes = bytesOf(read, bytes)), elapsed) },
    };
    try {
      void Promise.resolve(options.send(notification)).catch(() => {});
    } catch {
      // A closed stream: the result will not reach the client either, and the call ends on its own.
    }
  };
  const timer = setInterval(tick, checkProgressInterval(options.intervalMs));
  // A running call keeps the process alive by itself; the timer must not outlive it.
  timer.unref();
  return {
    watch: (bytesSoFar) => {
      read = bytesSoFar;
    },
    stop: () => clearInterval(timer),
  };
}

function bytesOf(read: (() => number) | undefined, before: number | undefined): number | undefined {
  if (!read) return before;
  try {
    return read();
  } catch {
    // The command's capture is already freed (its result is on the way): nothing more was written.
    return before;
  }
}
