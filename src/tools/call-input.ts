// Judges what a caller hands to a tool call besides the tool's own arguments: their shape, the signal, the call id.
import { callErrors } from '../contract/index.js';
import { ShellringError } from '../errors.js';
import { validSize, type TermSize } from '../executor/wire/term.js';

export interface CallOptions {
  signal?: AbortSignal;
  callId?: string;
  /** Told once the call's command starts, with a reader of the bytes it has written so far (a face's progress). */
  watchOutput?: (bytesSoFar: () => number) => void;
  /**
   * Asked once the call returns: a time (ms since the epoch) when it returned only to ask its client for input, and
   * a call with the same callId until then continues it (a face's approval round trip). Observers show one call.
   */
  suspended?: () => number | undefined;
  /** The size a `tty` call's terminal opens with (a person's own terminal), instead of 80×24. */
  terminalSize?: TermSize;
}

/** Omitted arguments are an empty object; anything else that is not a plain object is refused. */
export function checkArguments(args: unknown): unknown {
  if (args === undefined) return {};
  if (args === null || typeof args !== 'object' || Array.isArray(args)) throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', callErrors.arguments(args));
  return args;
}

/** A signal must be an AbortSignal: anything else would fail later, deep inside a running call. */
export function checkSignal(signal: unknown): AbortSignal | undefined {
  if (signal === undefined) return undefined;
  const candidate = signal as Partial<AbortSignal> | null;
  if (
    candidate === null ||
    typeof candidate !== 'object' ||
    typeof candidate.aborted !== 'boolean' ||
    typeof candidate.addEventListener !== 'function' ||
    typeof candidate.removeEventListener !== 'function'
  ) {
    throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', callErrors.signal(signal));
  }
  return signal as AbortSignal;
}

export function checkCallId(callId: unknown): string | undefined {
  if (callId === undefined) return undefined;
  if (typeof callId !== 'string') throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', callErrors.callId(callId));
  return callId;
}

/** The library's call options: omitted or null mean none. */
export function checkOptions(options: unknown): CallOptions {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', callErrors.options(options));
  const { signal, callId, watchOutput, suspended, terminalSize } = options as Record<string, unknown>;
  if (watchOutput !== undefined && typeof watchOutput !== 'function') {
    throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', callErrors.watchOutput(watchOutput));
  }
  if (suspended !== undefined && typeof suspended !== 'function') {
    throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', callErrors.suspended(suspended));
  }
  if (terminalSize !== undefined && !(typeof terminalSize === 'object' && terminalSize !== null && validSize(terminalSize as TermSize))) {
    throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', callErrors.terminalSize(terminalSize));
  }
  return {
    ...(terminalSize !== undefined ? { terminalSize: terminalSize as TermSize } : {}),
    signal: checkSignal(signal),
    callId: checkCallId(callId),
    watchOutput: watchOutput as CallOptions['watchOutput'],
    suspended: suspended as CallOptions['suspended'],
  };
}
