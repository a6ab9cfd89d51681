// `shellring serve`: the MCP server on streamable HTTP; SIGTERM drains, SIGINT closes. URL (and a generated token)
// go to stderr, then JSON logs.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pino } from 'pino';
import { ConsoleApprovals } from '../faces/console/approvals.js';
import { createConsoleHandler, type ConsoleHandler } from '../faces/console/handler.js';
import { TIMELINE_BYTES_PER_SESSION } from '../faces/console/timeline.js';
import { DEFAULT_DRAIN_TIMEOUT_MS, serveHttp, type HttpServeOptions, type HttpServer } from '../faces/mcp/http.js';
import { SessionRoutes } from '../faces/mcp/routes.js';
import { directoryOption, integerOption, parseCommand, sandboxedCwd, usageError, type Parsed } from './args.js';
import { composeConfig, } from './config.js';
import { SERVE_HELP } from './help.js';
import { onceSignal, write, type CliIO } from './io.js';
import { shownTrees, tokenDirectory, tokenOption } from './token.js';
import { resourceMetadataSchema, type ResourceMetadataOptions } from '../faces/http/resource-metadata.js';
import { AuthBackoff } from '../faces/http/auth-backoff.js';
import { logBackoff } from '../faces/http/log.js';
import { SERVE_FLAGS } from './flags.js';

const MAX_MS = 2_147_483_647;

export async function serveCommand(argv: string[], io: CliIO): Promise<number> {
  // The command line may name the token file; /proc/<pid>/cmdline is readable by every process on the host, so
  // the title replaces it before any command can run.
  process.title = 'shellring serve';
  const { values } = parseCommand(argv, SERVE_FLAGS);
  if (values.help) {
    await write(io.stdout, SERVE_HELP);
    return 0;
  }
  const { options, drainTimeoutMs, secureCookie } = await serveSettings(values);
  // Synchronous writes: the last lines before exit must not be lost, and stderr is not the hot path.
  const logger = pino({ base: { pid: process.pid } }, pino.destination({ fd: 2, sync: true }));
  // The web console answers escalations of sessions whose MCP client has no elicitation.
  const approvals = new ConsoleApprovals();
  // One back-off for the endpoint and the console: wrong bearer tokens and wrong sign-ins count together.
  const authBackoff = new AuthBackoff({ onBlock: logBackoff(logger) });
  // The console needs the runtime and token serveHttp makes; no request is handled before it is set below.
  let web: ConsoleHandler | undefined;
  const server = await started({
    ...options,
    routes: new SessionRoutes({ fallback: approvals.request }),
    consoleHandler: Object.assign((req: IncomingMessage, res: ServerResponse) => web!(req, res), { judgesAccess: true as const }),
    retainedStores: [{ name: 'console', bytesPerSession: TIMELINE_BYTES_PER_SESSION, bytes: () => web?.retainedBytes() ?? 0 }],
    authBackoff,
    logger,
  });
  // Only a generated token (loopback only) may sign in from a printed link; a configured one signs in by the form.
  web = createConsoleHandler(server.runtime, { token: server.token, approvals, secureCookie, linkSignIn: server.tokenGenerated, authBackoff });
  await announce(io, server);
  logger.info({ event: 'server.listening', url: server.url }, 'listening');
  const signal = await new Promise<NodeJS.Signals>((resolve) => onceSignal(['SIGINT', 'SIGTERM', 'SIGHUP'], resolve));
  if (signal === 'SIGTERM') {
    // A platform's stop: finish what is running, then go. A second SIGTERM does not cut it short.
    process.on('SIGTERM', () => logger.warn({ event: 'signal.ignored', signal: 'SIGTERM' }, 'already draining'));
    await server.drain(drainTimeoutMs);
  } else {
    await server.close();
  }
  web.close();
  logger.info({ event: 'server.stopped', signal }, 'stopped');
  return 0;
}

type ServeValues = Parsed['values'];

/** The server's options from the flags over the config file's serve section (see config.ts for the one precedence rule). */
async function serveSettings(values: ServeValues): Promise<{ options: HttpServeOptions; drainTimeoutMs: number; secureCookie: boolean }> {
  const count = (flag: string, raw: string | boolean | undefined) =>
    integerOption(flag, raw, { min: 1, max: 1_000_000, unit: 'a whole number' });
  const ms = (flag: string, raw: string | boolean | undefined, min: number) =>
    integerOption(flag, raw, { min, max: MAX_MS, unit: 'milliseconds' });
  const { runtime: runtimeOptions, serve: file } = composeConfig(values);
  const cwd = sandboxedCwd(runtimeOptions.sandbox?.mode, directoryOption(values.cwd ?? file.cwd));
  const source = tokenOption(values['token-file'], process.env, file.tokenFile);
  // Any sandbox, even one standing at danger-full-access: a person may narrow a session's mode later.
  const hiddenPaths =
    source?.file !== undefined && runtimeOptions.sandbox !== undefined
      ? [tokenDirectory(source.file, await shownTrees(cwd, runtimeOptions.sandbox.readAllow))]
      : [];
  const options: HttpServeOptions = {
    host: typeof values.host === 'string' ? values.host : (file.host ?? '127.0.0.1'),
    port: integerOption('--port', values.port, { min: 0, max: 65_535, unit: 'a port number' }) ?? file.port,
    cwd,
    runtimeOptions,
    token: source?.token,
    hiddenPaths,
    maxSessions: count('--max-sessions', values['max-sessions']) ?? file.maxSessions,
    maxCommandsPerSession: count('--max-commands-per-session', values['max-commands-per-session']) ?? file.maxCommandsPerSession,
    maxCommands: count('--max-commands', values['max-commands']) ?? file.maxCommands,
    idleTimeoutMs: ms('--idle-timeout', values['idle-timeout'], 0) ?? file.idleTimeoutMs,
    logCommands: values['log-commands'] === true || file.logCommands === true,
    instanceId: typeof values['instance-id'] === 'string' ? values['instance-id'] : file.instanceId,
    oauth: oauthOption(values, file.oauth),
  };
  return {
    options,
    drainTimeoutMs: ms('--drain-timeout', values['drain-timeout'], 0) ?? file.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS,
    secureCookie: values['secure-cookie'] === true || file.secureCookie === true,
  };
}

/** serveHttp, with the invocation's faults (no token, a taken port) as usage errors rather than crashes. */
async function started(options: HttpServeOptions): Promise<HttpServer> {
  try {
    return await serveHttp(options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'SHELLRING_NO_TOKEN' || code === 'SHELLRING_INVALID_CONFIG') throw usageError((error as Error).message, error);
    if (code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL' || code === 'EACCES' || code === 'ENOTFOUND') {
      throw usageError(`cannot listen on ${options.host}:${options.port ?? 0}: ${(error as Error).message}`, error);
    }
    throw error;
  }
}

/** The address, and the console's: a generated token is printed (loopback only), a configured one never. */
async function announce(io: CliIO, server: HttpServer): Promise<void> {
  await write(io.stderr, `shellring: MCP server listening on ${server.url}\n`);
  if (server.tokenGenerated) {
    await write(io.stderr, `shellring: token (generated for this run): ${server.token}\n`);
    await write(io.stderr, `shellring: web console at ${new URL(`/?token=${server.token}`, server.url)}\n`);
  } else {
    await write(io.stderr, `shellring: web console at ${new URL('/', server.url)} (sign in with the token in its form)\n`);
  }
}

/** The protected-resource metadata: --resource-url and --authorization-server over the config file's serve.oauth. */
function oauthOption(values: Record<string, string | boolean | undefined>, file: ResourceMetadataOptions | undefined): ResourceMetadataOptions {
  const oauth: ResourceMetadataOptions = { ...file };
  if (typeof values['resource-url'] === 'string') oauth.resource = values['resource-url'];
  const servers = values['authorization-server'];
  if (typeof servers === 'string') oauth.authorizationServers = servers.split(',').map((url) => url.trim()).filter(Boolean);
  const parsed = resourceMetadataSchema.safeParse(oauth);
  if (parsed.success) return oauth;
  const issue = parsed.error.issues[0]!;
  const flag = issue.path[0] === 'resource' ? '--resource-url' : issue.path[0] === 'authorizationServers' ? '--authorization-server' : `serve.oauth.${issue.path.join('.')}`;
  throw usageError(`invalid ${flag}: ${issue.message}`);
}
