// A terminal job's words, as crates/wire/src/term.rs has them (test/executor/wire.test.ts holds the two together):
// its size, and the screen the runner answers a `screen` control line with (the lines are in control.ts).
import type { TermScreen } from '../../contract/index.js';

export type { TermScreen };

/** The smallest and largest side a terminal may have. */
export const MIN_SIDE = 2;
export const MAX_SIDE = 1000;

export interface TermSize {
  cols: number;
  rows: number;
}

/** A `screen` status line's arguments as the screen; undefined when malformed. */
export function parseScreen(args: string): TermScreen | undefined {
  const [cols, rows, alternate, cursorRow, cursorCol, hex = ''] = args.split(' ');
  const numbers = [cols, rows, alternate, cursorRow, cursorCol].map(Number);
  if (numbers.some((n) => !Number.isInteger(n)) || hex.length % 2 !== 0) return undefined;
  return {
    cols: numbers[0]!,
    rows: numbers[1]!,
    alternate: numbers[2] === 1,
    cursorRow: numbers[3]!,
    cursorCol: numbers[4]!,
    lines: Buffer.from(hex, 'hex').toString('utf8').split('\n'),
  };
}

/** Whether a size is one a terminal may have. */
export function validSize({ cols, rows }: TermSize): boolean {
  const side = (n: number) => Number.isInteger(n) && n >= MIN_SIDE && n <= MAX_SIDE;
  return side(cols) && side(rows);
}
