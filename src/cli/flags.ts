// The options each CLI command takes, apart from the commands themselves: the table, help and docs read them without
// loading a command (and with it the faces' packages, which may not be installed).
import type { OptionSpec } from './args.js';
import { RUNTIME_FLAGS } from './config.js';

/** Every option `run` takes (RUN_HELP lists each one). */
export const RUN_FLAGS: Record<string, OptionSpec> = {
  ...RUNTIME_FLAGS,
  // The call's own timeout here, not the runtime's default.
  timeout: { type: 'string' },
  cwd: { type: 'string' },
  tty: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

/** Every option `mcp` takes (MCP_HELP lists each one). */
export const MCP_FLAGS: Record<string, OptionSpec> = { ...RUNTIME_FLAGS, cwd: { type: 'string' }, help: { type: 'boolean', short: 'h' } };

/** Every option `serve` takes (SERVE_HELP lists each one; the config file's serve section takes them too). */
export const SERVE_FLAGS: Record<string, OptionSpec> = {
  ...RUNTIME_FLAGS,
  port: { type: 'string', sets: ['serve.port'] },
  host: { type: 'string', sets: ['serve.host'] },
  cwd: { type: 'string', sets: ['serve.cwd'] },
  'token-file': { type: 'string', sets: ['serve.tokenFile'] },
  'max-sessions': { type: 'string', sets: ['serve.maxSessions'] },
  'max-commands-per-session': { type: 'string', sets: ['serve.maxCommandsPerSession'] },
  'max-commands': { type: 'string', sets: ['serve.maxCommands'] },
  'idle-timeout': { type: 'string', sets: ['serve.idleTimeoutMs'] },
  'drain-timeout': { type: 'string', sets: ['serve.drainTimeoutMs'] },
  'log-commands': { type: 'boolean', sets: ['serve.logCommands'] },
  'secure-cookie': { type: 'boolean', sets: ['serve.secureCookie'] },
  'instance-id': { type: 'string', sets: ['serve.instanceId'] },
  'resource-url': { type: 'string', sets: ['serve.oauth.resource'] },
  'authorization-server': { type: 'string', sets: ['serve.oauth.authorizationServers'] },
  help: { type: 'boolean', short: 'h' },
};

/** Every option `demo` takes. */
export const DEMO_FLAGS: Record<string, OptionSpec> = { help: { type: 'boolean', short: 'h' } };
