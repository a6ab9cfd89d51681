// A runner's status lines (fd 3, or a `T` frame of `--stdio`) as events, in the words of crates/wire/src/status.rs
// (test/executor/wire.test.ts holds the two together).
import { constants } from 'node:os';
import { getSystemErrorMap } from 'node:util';
import { RUNNER_ERROR_CODES, supervisionErrors, type RunnerErrorCode } from '../../contract/index.js';
import { CAUSES, type KillCause } from './control.js';
import { parseScreen, type TermScreen } from './term.js';

/** Each word with its arguments' names. */
export const STATUS_WORDS = {
  runner: ['pid'],
  started: ['pid', 'enforcement'],
  deadline: [],
  stopping: ['cause'],
  exit: ['code', 'ended'],
  signal: ['number', 'ended'],
  over: ['left'],
  workdir: ['errno'],
  error: ['code', 'detail'],
  screen: ['cols', 'rows', 'alternate', 'cursorRow', 'cursorCol', 'hex'],
} as const;

export type RunnerEvent =
  /** The fork server's child says its pid before anything else. */
  | { type: 'runner'; pid: number }
  | { type: 'started'; pid: number; enforcement: string }
  /** bash reached its deadline, still running, under `atTimeout: 'report'`. */
  | { type: 'deadline' }
  /** The runner began ending the command for this cause (the first): TERM now, KILL after the grace. */
  | { type: 'stopping'; cause: KillCause }
  /** `ended`: processes bash left running that ended with it (a confined command's: its runner ends them). */
  | { type: 'exit'; code: number; ended?: number }
  | { type: 'signal'; signal: string; ended?: number }
  /** The command's output is over; `left`: the processes it left running (they end with the runner). */
  | { type: 'over'; left: number }
  /** The runner failed and the command did not run: `code` says how (absent for a line no runner writes). */
  | { type: 'error'; code?: RunnerErrorCode; message: string }
  /** The working directory could not be entered: errno of chdir(2). */
  | { type: 'workdir'; errno: number }
  /** A terminal job's screen, as asked for. */
  | { type: 'screen'; screen: TermScreen }
  | { type: 'eof' };

/** One status line (without its newline) as an event. */
export function parse(line: string): RunnerEvent {
  const space = line.indexOf(' ');
  const word = space < 0 ? line : line.slice(0, space);
  const rest = space < 0 ? '' : line.slice(space + 1);
  if (word === 'started') {
    const [pid, enforcement = 'none'] = rest.split(' ');
    return { type: 'started', pid: Number(pid), enforcement };
  }
  if (word === 'workdir') return { type: 'workdir', errno: Number(rest) };
  if (word === 'deadline') return { type: 'deadline' };
  if (word === 'over') return { type: 'over', left: Number(rest) };
  if (word === 'stopping') {
    const cause = CAUSES.find((known) => known === rest);
    if (cause) return { type: 'stopping', cause };
  }
  if (word === 'runner') return { type: 'runner', pid: Number(rest) };
  if (word === 'exit' || word === 'signal') {
    // `<value>[ <ended>]`
    const [value, count] = rest.split(' ');
    const ended = Number(count) > 0 ? { ended: Number(count) } : {};
    return word === 'exit' ? { type: 'exit', code: Number(value), ...ended } : { type: 'signal', signal: signalName(Number(value)), ...ended };
  }
  if (word === 'screen') {
    const screen = parseScreen(rest);
    if (screen) return { type: 'screen', screen };
  }
  if (word === 'error') {
    const gap = rest.indexOf(' ');
    const code = RUNNER_ERROR_CODES.find((known) => known === rest.slice(0, gap));
    if (code) return { type: 'error', code, message: rest.slice(gap + 1) };
  }
  return { type: 'error', message: rest || line };
}

const SIGNALS: Record<number, string> = Object.fromEntries(
  Object.entries(constants.signals).map(([name, number]) => [number, name]),
);

function signalName(number: number): string {
  return SIGNALS[number] ?? `SIG${number}`;
}

/** chdir(2)'s errno worded as Node words a failed chdir: `ENOENT: no such file or directory, chdir '<dir>'`. */
export function chdirFailure(errno: number, dir: string): string {
  const [name, message] = getSystemErrorMap().get(-errno) ?? supervisionErrors.chdirUnknown(errno);
  return supervisionErrors.chdir(name, message, dir);
}
