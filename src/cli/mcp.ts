// `shellring mcp`: the MCP server on stdio. Nothing on this path may write to stdout but the protocol itself.
import { serveStdio } from '../faces/mcp/stdio.js';
import { directoryOption, parseCommand, sandboxedCwd, } from './args.js';
import { composeConfig, } from './config.js';
import { MCP_HELP } from './help.js';
import { onceSignal, write, type CliIO } from './io.js';
import { MCP_FLAGS } from './flags.js';

export async function mcpCommand(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseCommand(argv, MCP_FLAGS);
  if (values.help) {
    // Asked for by a person at a terminal, not by an MCP client: the one time stdout carries anything else.
    await write(io.stdout, MCP_HELP);
    return 0;
  }
  const { runtime: runtimeOptions } = composeConfig(values);
  const cwd = sandboxedCwd(runtimeOptions.sandbox?.mode, directoryOption(values.cwd));
  const server = await serveStdio({ cwd, runtimeOptions });
  const release = onceSignal(['SIGINT', 'SIGTERM', 'SIGHUP'], () => void server.close());
  await server.closed;
  release();
  return 0;
}
