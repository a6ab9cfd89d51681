#!/usr/bin/env node
// The `shellring` executable: dispatches to run, mcp, serve and demo; usage errors exit 2 with a message on stderr.
import { facePeerError } from '../faces/peers.js';
import { packageVersion } from '../faces/version.js';
import { isShellringError } from '../errors.js';
import { usageError } from './args.js';
import { TOP_HELP } from './help.js';
import { write, type CliIO } from './io.js';
import { COMMANDS, type CommandRun } from './commands.js';

/** Errors that are the installation's, not a bug: their message is the whole story, with its fix. */
const SETUP_ERRORS = ['SHELLRING_BINDING_MISSING', 'SHELLRING_RUNNER_MISSING', 'SHELLRING_MISSING_DEPENDENCY'] as const;

async function main(argv: string[], io: CliIO): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '-h' || first === '--help') {
    await write(io.stdout, TOP_HELP);
    return 0;
  }
  if (first === '-v' || first === '--version') {
    await write(io.stdout, `${packageVersion()}\n`);
    return 0;
  }
  if (first === undefined) {
    const names = Object.keys(COMMANDS);
    throw usageError(`missing command (${names.slice(0, -1).join(', ')} or ${names.at(-1)})`);
  }
  const command = COMMANDS[first];
  if (!command) {
    throw usageError(first.startsWith('-') ? `unknown option '${first}'` : `unknown command '${first}'`);
  }
  // Usage errors name the command they came from, so the message can point at its help.
  dispatched = first;
  let run: CommandRun;
  try {
    run = await command.load();
  } catch (error) {
    throw facePeerError(error, `shellring ${first}`, command.faces, first);
  }
  return run(rest, io);
}

let dispatched: string | undefined;
const io: CliIO = { stdout: process.stdout, stderr: process.stderr };
let status: number;
try {
  status = await main(process.argv.slice(2), io);
} catch (error) {
  status = await report(error);
}
// Exit explicitly: a library handle left open (a worker pool, a socket) must not keep a finished CLI alive.
process.exit(status);

async function report(error: unknown): Promise<number> {
  if (isShellringError(error, 'SHELLRING_USAGE')) {
    const help = dispatched ? `shellring ${dispatched} --help` : 'shellring --help';
    await write(io.stderr, `shellring${dispatched ? ` ${dispatched}` : ''}: ${error.message}\nRun '${help}' for usage.\n`);
    return 2;
  }
  // Options rejected by the runtime's own validation (flags are judged first; this is what remains) are usage
  // errors too, and point to the same help.
  if (isShellringError(error, 'SHELLRING_INVALID_CONFIG')) {
    const help = dispatched ? `shellring ${dispatched} --help` : 'shellring --help';
    await write(io.stderr, `shellring: ${error.message}\nRun '${help}' for usage.\n`);
    return 2;
  }
  if (SETUP_ERRORS.some((code) => isShellringError(error, code))) {
    await write(io.stderr, `${(error as Error).message}\n`);
    return 1;
  }
  await write(io.stderr, `shellring: ${(error as Error)?.stack ?? String(error)}\n`);
  return 1;
}
