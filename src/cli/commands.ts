// The CLI's commands: what each runs (loaded on use, with the faces whose packages it needs), the options it takes
// and its help text, in one table. `run` and `demo` work where only shellring is installed.
import type { Face } from '../faces/peers.js';
import type { OptionSpec } from './args.js';
import { DEMO_FLAGS, MCP_FLAGS, RUN_FLAGS, SERVE_FLAGS } from './flags.js';
import { DEMO_HELP, MCP_HELP, RUN_HELP, SERVE_HELP } from './help.js';
import type { CliIO } from './io.js';

export type CommandRun = (argv: string[], io: CliIO) => Promise<number>;

export interface Command {
  load(): Promise<CommandRun>;
  faces: Face[];
  flags: Record<string, OptionSpec>;
  help: string;
}

export const COMMANDS: Record<string, Command> = {
  run: { load: async () => (await import('./run.js')).runCommand, faces: [], flags: RUN_FLAGS, help: RUN_HELP },
  mcp: { load: async () => (await import('./mcp.js')).mcpCommand, faces: ['mcp'], flags: MCP_FLAGS, help: MCP_HELP },
  serve: { load: async () => (await import('./serve.js')).serveCommand, faces: ['mcp', 'http', 'console'], flags: SERVE_FLAGS, help: SERVE_HELP },
  demo: { load: async () => (await import('./demo.js')).demoCommand, faces: [], flags: DEMO_FLAGS, help: DEMO_HELP },
};
