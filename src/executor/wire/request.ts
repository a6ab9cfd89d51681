// What a runner is sent for one command, wherever it runs (a local fork server's child, or `shellring-runner --stdio`
// on another host): the request record and the route beside it, in the order and kinds of crates/wire/src/request.rs
// and route.rs (test/executor/wire.test.ts holds them together), and how a command reaches bash.
import { MAX_COMMAND_BYTES, supervisionErrors } from '../../contract/index.js';
import { PLAN_FIELDS, planFields, type ConfinementPlan, type FieldKind } from './plan.js';
import type { TermSize } from './term.js';

/** What one command asks its runner: sent on the status socket right after its descriptors. */
export interface RunnerRequest {
  cwd: string;
  plan: ConfinementPlan;
  /** What bash runs (`bash -c <command>`). */
  command: string;
  env: Record<string, string>;
  /** Run on a terminal of this size, which the runner opens (else on pipes). */
  terminal?: TermSize;
  stdin?: string;
}

/** The request's fields: the working directory, the plan and its command, the environment, the terminal's size
 * (empty fields without one), stdin last. */
export const REQUEST_FIELDS = [
  ['cwd', 'text'],
  ...PLAN_FIELDS,
  ['env', 'pairs'],
  ['terminal.cols', 'count'],
  ['terminal.rows', 'count'],
  ['stdin', 'rest'],
] as const satisfies readonly (readonly [
  string,
  FieldKind,
])[];

/** The request record: a u32 length, NUL-terminated fields, stdin last (`-`, or `+` and its bytes). Built as one
 * string and written once: it is made per command. */
export function encode({ cwd, plan, command, env, terminal, stdin }: RunnerRequest): Buffer {
  const names = Object.keys(env);
  let text = textFields([cwd, ...planFields(plan, command), String(names.length)]);
  for (const name of names) text += textField(`${name}=${env[name]}`);
  text += textFields(terminal ? [String(terminal.cols), String(terminal.rows)] : ['', '']);
  text += stdin === undefined ? '-' : '+';
  const head = Buffer.byteLength(text);
  const frame = Buffer.allocUnsafe(4 + head + (stdin === undefined ? 0 : Buffer.byteLength(stdin)));
  frame.writeUInt32LE(frame.length - 4, 0);
  frame.write(text, 4);
  if (stdin !== undefined) frame.write(stdin, 4 + head);
  return frame;
}

/** A session sandbox's plan, as the record it reads on stdin (`shellring-runner --session --serve`). */
export function encodeSessionPlan(plan: ConfinementPlan): Buffer {
  const body = Buffer.from(textFields(planFields(plan, '')));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(body.length);
  return Buffer.concat([length, body]);
}

/** The byte that marks a payload naming its session's cgroups (crates/wire/src/route.rs `MARK`). */
export const ROUTE_MARK = 2;
export const ROUTE_FIELDS = [
  ['cgroups', 'list'],
  ['limits', 'list'],
] as const satisfies readonly (readonly [string, FieldKind])[];

/**
 * The payload that sends a command with session cgroups to its session's spawner in the fork server, which joined
 * them once (a process forked there is born in them; moving one in costs the kernel a grace period): the mark, then
 * the cgroups and the limits, each a count and its fields. Undefined without cgroups.
 */
export function routeOf({ cgroups, cgroupLimits }: ConfinementPlan): Buffer | undefined {
  if (cgroups.length === 0) return undefined;
  const text = textFields([String(cgroups.length), ...cgroups, String(cgroupLimits.length), ...cgroupLimits]);
  return Buffer.concat([Buffer.of(ROUTE_MARK), Buffer.from(text)]);
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
