// The lines this side sends a command's runner (crates/wire/src/control.rs): the terms of the command's life first,
// then what it asks during it (an end; a terminal job's input, size and screen). The runner keeps the terms itself
// (deadline, TERM then KILL after the grace, the bound on waiting for the output): test/executor/wire.test.ts holds
// these words to the runner's.
import type { TermSize } from './term.js';

/** Each word with its arguments' names. */
export const CONTROL_WORDS = {
  life: ['timeoutMs', 'atTimeout', 'graceMs', 'drainMs'],
  kill: ['cause'],
  'output-ended': [],
  input: ['hex'],
  resize: ['cols', 'rows'],
  screen: [],
  interrupt: [],
} as const;

/** Why a command is ended from outside its own course: its deadline, its call aborted, a kill. */
export const CAUSES = ['timeout', 'abort', 'kill'] as const;
export type KillCause = (typeof CAUSES)[number];
/** What the runner does at the deadline: end the command, or only say so (the caller decides). */
export const AT_TIMEOUT = ['kill', 'report'] as const;
export type AtTimeout = (typeof AT_TIMEOUT)[number];

/** The terms of a command's life, counted from the start of bash. */
export function lifeLine(terms: { timeoutMs: number; atTimeout: AtTimeout; graceMs: number; drainMs: number }): string {
  const ms = (value: number) => String(Math.max(0, Math.ceil(value)));
  return `life ${ms(terms.timeoutMs)} ${terms.atTimeout} ${ms(terms.graceMs)} ${ms(terms.drainMs)}`;
}

/** End the command for `cause` (the runner keeps the first cause, and ends nothing once bash has ended). */
export function killLine(cause: KillCause): string {
  return `kill ${cause}`;
}

/** The command's output pipes both reached end-of-file where this side reads them. */
export const OUTPUT_ENDED = 'output-ended';

/** What a terminal job's relay is asked (an interrupt without a terminal is SIGINT to the command's group). */
export type TermControl =
  | { type: 'input'; bytes: Buffer }
  | { type: 'resize'; size: TermSize }
  | { type: 'screen' }
  | { type: 'interrupt' };

/** A terminal control's line, without its newline. */
export function termLine(control: TermControl): string {
  switch (control.type) {
    case 'input':
      return `input ${control.bytes.toString('hex')}`;
    case 'resize':
      return `resize ${control.size.cols} ${control.size.rows}`;
    default:
      return control.type;
  }
}
