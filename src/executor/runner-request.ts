// What a runner is sent and what it says back, wherever it runs (a local fork server's child, or
// `shellring-runner --stdio` on another host): the request frame, how a command reaches bash, and the status words.
import { constants } from 'node:os';
import { getSystemErrorMap } from 'node:util';
import { MAX_COMMAND_BYTES, RUNNER_ERROR_CODES, supervisionErrors, type RunnerErrorCode } from '../contract/index.js';
import { encodePlan, type ConfinementPlan } from './confinement-plan.js';

/** What one command asks its runner: sent on the status socket right after its descriptors. */
export interface RunnerRequest {
  cwd: string;
  plan: ConfinementPlan;
  /** What bash runs (`bash -c <command>`). */
  command: string;
  env: Record<string, string>;
  stdin?: string;
}

/** The request frame the runner reads (crates/runner/src/request.rs): a u32 length, NUL-terminated fields (cwd, the
 * plan with its command, the environment), stdin last. Built as one string and written once: it is made per command. */
export function encode({ cwd, plan, command, env, stdin }: RunnerRequest): Buffer {
  const names = Object.keys(env);
  let text = textFields([cwd, ...encodePlan(plan, command), String(names.length)]);
  for (const name of names) text += textField(`${name}=${env[name]}`);
  text += stdin === undefined ? '-' : '+';
  const head = Buffer.byteLength(text);
  const frame = Buffer.allocUnsafe(4 + head + (stdin === undefined ? 0 : Buffer.byteLength(stdin)));
  frame.writeUInt32LE(frame.length - 4, 0);
  frame.write(text, 4);
  if (stdin !== undefined) frame.write(stdin, 4 + head);
  return frame;
}

/** A session sandbox's plan, as the frame it reads on stdin (`shellring-runner --session --serve`). */
export function encodeSessionPlan(plan: ConfinementPlan): Buffer {
  const body = Buffer.from(textFields(encodePlan(plan, '')));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(body.length);
  return Buffer.concat([length, body]);
}

/** Each field NUL-terminated: none may hold a NUL itself. */
function textFields(fields: string[]): string {
  let text = '';
  for (const field of fields) text += textField(field);
  return text;
}

function textField(field: string): string {
  if (field.includes('\0')) throw new Error(supervisionErrors.nulArgument);
  return `${field}\0`;
}

/** Reads the whole script from stdin (re-opened, from its start), then runs it with stdin on /dev/null. */
const FROM_STDIN = 'eval "$(</dev/stdin)" </dev/null';

/** How a command reaches bash: as its own argument (`bash -c <command>`), or, past the kernel's one-argument limit
 * (MAX_ARG_STRLEN), on bash's stdin, which the runner serves from a memory file, while the command itself reads
 * /dev/null as any other does. */
export function bashArguments(command: string, stdin: string | undefined): { command: string; stdin: string | undefined } {
  // The executor refuses a long command that comes with stdin of its own, so stdin is free here.
  if (stdin === undefined && Buffer.byteLength(command, 'utf8') > MAX_COMMAND_BYTES) return { command: FROM_STDIN, stdin: command };
  return { command, stdin };
}

/** A runner's status line (fd 3, or a `T` frame of `--stdio`) as an event. */
export type RunnerEvent =
  /** The fork server's child says its pid before anything else. */
  | { type: 'runner'; pid: number }
  | { type: 'started'; pid: number; enforcement: string }
  | { type: 'exit'; code: number }
  | { type: 'signal'; signal: string }
  /** The runner failed and the command did not run: `code` says how (absent for a line no runner writes). */
  | { type: 'error'; code?: RunnerErrorCode; message: string }
  /** The working directory could not be entered: errno of chdir(2). */
  | { type: 'workdir'; errno: number }
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
  if (word === 'runner') return { type: 'runner', pid: Number(rest) };
  if (word === 'exit') return { type: 'exit', code: Number(rest) };
  if (word === 'signal') return { type: 'signal', signal: signalName(Number(rest)) };
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
