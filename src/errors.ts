// The one error type shellring throws: a message, a code from the closed union below, and the original as `cause`.
import type { z } from 'zod';

/**
 * Every code a shellring error can carry. Codes of the native capture core (`SHELLRING_UNKNOWN_CAPTURE`,
 * `SHELLRING_NO_RING`, ...) are raised by the addon itself and documented in src/native/binding.ts.
 * `SANDBOX_UNAVAILABLE` keeps the exact spelling the contract gives it.
 */
export type ShellringErrorCode =
  /** A configuration object failed validation (runtime options, executor config). */
  | 'SHELLRING_INVALID_CONFIG'
  /** An executor request was malformed (command, timeout, workdir, caps). */
  | 'SHELLRING_INVALID_REQUEST'
  /** A tool call's arguments failed the tool's schema. */
  | 'SHELLRING_INVALID_ARGUMENTS'
  | 'SHELLRING_INVALID_SESSION'
  | 'SHELLRING_INVALID_SANDBOX_MODE'
  /** The runtime, executor or session was already closed. */
  | 'SHELLRING_CLOSED'
  | 'SHELLRING_UNKNOWN_TOOL'
  /** The command could not be started at all (a non-zero exit is a result, not an error). */
  | 'SHELLRING_SPAWN_FAILED'
  /** The tool call's signal aborted it. */
  | 'SHELLRING_ABORTED'
  /** The tool refused the call by policy: background or escalation rules, a rejected or missing approval. */
  | 'SHELLRING_REFUSED'
  | 'SHELLRING_NO_SANDBOX'
  | 'SANDBOX_UNAVAILABLE'
  | 'SHELLRING_SANDBOX_ROOT'
  | 'SHELLRING_JOB_LIMIT'
  | 'SHELLRING_UNKNOWN_JOB'
  | 'SHELLRING_INVALID_JOB_ID'
  | 'SHELLRING_FOREIGN_JOB'
  /** A name registered twice (a tool, a prompt section, an environment contributor) or an invalid registration. */
  | 'SHELLRING_REGISTRATION'
  | 'SHELLRING_RUNNER_MISSING'
  | 'SHELLRING_BINDING_MISSING'
  /** A face's package (an optional peer dependency) is not installed. */
  | 'SHELLRING_MISSING_DEPENDENCY'
  /** An HTTP server on a non-loopback address was given no token. */
  | 'SHELLRING_NO_TOKEN'
  /** The command line was used wrongly (the CLI exits 2). */
  | 'SHELLRING_USAGE';

export class ShellringError extends Error {
  readonly code: ShellringErrorCode;

  constructor(code: ShellringErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Whether `error` is a shellring error, optionally with the given code. */
export function isShellringError(error: unknown, code?: ShellringErrorCode): error is ShellringError {
  return error instanceof ShellringError && (code === undefined || error.code === code);
}

/** Validates configuration once; the first issue becomes SHELLRING_INVALID_CONFIG naming its field. */
export function parseConfig<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.join('.') || '(root)';
  throw new ShellringError('SHELLRING_INVALID_CONFIG', `invalid ${what}: ${field}: ${issue.message}`, { cause: parsed.error });
}
