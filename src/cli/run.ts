// `shellring run`: one bash call through the whole runtime, printing exactly the text a model would see.
import { randomUUID } from 'node:crypto';
import { loadBinding } from '../native/loader.js';
import { createRuntime } from '../runtime/runtime.js';
import { directoryOption, integerOption, parseCommand, usageError, } from './args.js';
import { composeConfig, } from './config.js';
import { RUN_HELP } from './help.js';
import { onceSignal, SIGNAL_EXIT, write, type CliIO } from './io.js';
import { RUN_FLAGS } from './flags.js';
import { runOnTerminal, type TerminalIO } from './run-tty.js';

const DESCRIPTION = 'run from the command line';

export async function runCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommand(argv, RUN_FLAGS, { positionals: true });
  if (values.help) {
    await write(io.stdout, RUN_HELP);
    return 0;
  }
  // A blank command is left to the bash tool, which refuses it with the same error a model would get.
  if (positionals.length === 0) throw usageError('missing command: shellring run [options] -- <command>');
  const command = positionals.join(' ');
  const tty = values.tty === true;
  if (tty && values.timeout !== undefined) throw usageError('--timeout does not apply to --tty: the command runs until it ends or is ended');
  const cwd = directoryOption(values.cwd) ?? process.cwd();
  const timeoutMs = integerOption('--timeout', values.timeout, { min: 1, max: 600_000, unit: 'milliseconds' });
  const { runtime: configured } = composeConfig(values, { callTimeoutFlag: true });
  const runtime = await createRuntime({
    ...configured,
    // One terminal job, for as long as the person at this terminal keeps it.
    ...(tty ? { enableRunInBackground: true } : {}),
    // Nobody is left to read a background job once this process exits: a timeout kills the command.
    promoteOnTimeout: false,
    // The printed text may name a spill file; it must still be there for the person who reads it.
    executor: { ...configured.executor, keepSpills: true },
  });
  if (tty) {
    try {
      return await runOnTerminal(runtime, runtime.session({ id: randomUUID(), cwd }), command, DESCRIPTION, terminalIO(io));
    } finally {
      await runtime.close();
    }
  }
  const controller = new AbortController();
  let interrupted: NodeJS.Signals | undefined;
  const release = onceSignal(['SIGINT', 'SIGTERM'], (signal) => {
    interrupted = signal;
    controller.abort();
  });
  try {
    const session = runtime.session({ id: randomUUID(), cwd });
    const args = { command, description: DESCRIPTION, ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
    const result = await session.callTool('bash', args, { signal: controller.signal });
    const text = result.content.map((part) => part.text).join('');
    if (result.isError) {
      await write(io.stderr, `${text}\n`);
      return interrupted ? SIGNAL_EXIT[interrupted]! : 1;
    }
    // Byte-exact for pipes and files; a terminal gets a final newline so the prompt starts on its own line.
    await write(io.stdout, io.stdout.isTTY && !text.endsWith('\n') ? `${text}\n` : text);
    return 0;
  } finally {
    release();
    await runtime.close();
  }
}

/** This process's own terminal, where stdout is one. */
function terminalIO(io: CliIO): TerminalIO {
  const out = process.stdout;
  return {
    ...io,
    stdin: process.stdin,
    // Read from the kernel each time: `out.columns` changes only when Node has handled the SIGWINCH.
    size: () => (out.isTTY ? (loadBinding().terminalSize(out.fd) ?? undefined) : undefined),
    onResize: (listener) => {
      out.on('resize', listener);
      return () => out.off('resize', listener);
    },
  };
}
