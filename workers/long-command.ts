// How a command reaches bash: as its own argument (`bash -c <command>`), or, past the kernel's one-argument limit
// (MAX_ARG_STRLEN), on bash's stdin, which the runner serves from a memory file, while the command itself reads
// /dev/null as any other does.
import { MAX_COMMAND_BYTES } from '../src/contract/index.js';

/** Reads the whole script from stdin (re-opened, from its start), then runs it with stdin on /dev/null. */
const FROM_STDIN = 'eval "$(</dev/stdin)" </dev/null';

export function bashArguments(command: string, stdin: string | undefined): { args: string[]; stdin: string | undefined } {
  // The executor refuses a long command that comes with stdin of its own, so stdin is free here.
  if (stdin === undefined && Buffer.byteLength(command, 'utf8') > MAX_COMMAND_BYTES) return { args: ['-c', FROM_STDIN], stdin: command };
  return { args: ['-c', command], stdin };
}
