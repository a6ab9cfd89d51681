// `shellring serve`: the MCP server on streamable HTTP until SIGINT or SIGTERM; the URL goes to stderr.
import { serveHttp } from '../faces/mcp/http.js';
import { directoryOption, integerOption, parseCommand, sandboxOption, UsageError } from './args.js';
import { SERVE_HELP } from './help.js';
import { onceSignal, write, type CliIO } from './io.js';
import { tokenOption } from './token.js';

export async function serveCommand(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseCommand('serve', argv, {
    port: { type: 'string' },
    host: { type: 'string' },
    cwd: { type: 'string' },
    sandbox: { type: 'string' },
    'token-file': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    await write(io.stdout, SERVE_HELP);
    return 0;
  }
  const port = integerOption('serve', '--port', values.port, { min: 0, max: 65_535, unit: 'a port number' });
  const host = typeof values.host === 'string' ? values.host : '127.0.0.1';
  const cwd = directoryOption('serve', values.cwd);
  const sandboxMode = sandboxOption(values.sandbox);
  const token = tokenOption(values['token-file'], process.env);
  let server;
  try {
    server = await serveHttp({ host, port, cwd, sandboxMode, token });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'SHELLRING_NO_TOKEN') throw new UsageError((error as Error).message, 'serve');
    // A taken port or an address this host does not have is the invocation's fault, not a crash.
    if (code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL' || code === 'EACCES' || code === 'ENOTFOUND') {
      throw new UsageError(`cannot listen on ${host}:${port ?? 0}: ${(error as Error).message}`, 'serve');
    }
    throw error;
  }
  await write(io.stderr, `shellring: MCP server listening on ${server.url}\n`);
  if (server.tokenGenerated) {
    await write(io.stderr, `shellring: token (generated for this run): ${server.token}\n`);
  }
  await new Promise<void>((resolve) => onceSignal(['SIGINT', 'SIGTERM', 'SIGHUP'], () => resolve()));
  await server.close();
  return 0;
}
