// The MCP server over stdio: one runtime session for the life of the process; stdout carries protocol only. The
// first message picks the revision: 2025-11-25 (initialize) or 2026-07-28 (per-request _meta), served by either SDK.
import { randomUUID } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { serveStdio as serveModernStdio, StdioServerTransport as ModernStdioTransport } from '@modelcontextprotocol/server/stdio';
import type { RuntimeOptions } from '../../runtime/options.js';
import { createRuntime, type Runtime } from '../../runtime/runtime.js';
import { faceRuntimeOptions } from '../runtime-options.js';
import { SessionRoutes } from './routes.js';
import { createMcpServer } from './server.js';
import { checkProgressInterval } from './progress.js';
import { ModernFace } from './modern/face.js';
import { readOpening } from './modern/opening.js';
import { StateCodec } from './modern/request-state.js';
import { ModernStates } from './modern/states.js';

export interface StdioServeOptions {
  /** The session's working directory. Default: the launch directory. */
  cwd?: string;
  /** Default: a fresh random id. */
  sessionId?: string;
  sandboxMode?: string;
  runtimeOptions?: RuntimeOptions;
  stdin?: Readable;
  stdout?: Writable;
  /** How often a call that carries a progress token is told about (1 to 20000 ms). Default 15000. */
  progressIntervalMs?: number;
}

export interface StdioServer {
  runtime: Runtime;
  sessionId: string;
  /** Settles once everything is closed: the client went away or close() was called. */
  closed: Promise<void>;
  close(): Promise<void>;
}

export async function serveStdio(options: StdioServeOptions = {}): Promise<StdioServer> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  // Judged before anything starts, so a bad value leaves nothing running.
  const progressIntervalMs = checkProgressInterval(options.progressIntervalMs);
  const routes = new SessionRoutes();
  const runtime = await createRuntime(
    faceRuntimeOptions(options.runtimeOptions ?? {}, { sandboxMode: options.sandboxMode, approve: routes.approve, available: routes.available }),
  );
  const unlisten = routes.listen(runtime);
  const session = runtime.session({ id: options.sessionId ?? randomUUID(), cwd: options.cwd ?? process.cwd() });
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  let closing: Promise<void> | undefined;
  let closeServer: () => Promise<void> = async () => {};
  const close = () => {
    closing ??= (async () => {
      stdin.off('end', onGone);
      stdin.off('close', onGone);
      stdout.off('error', onGone);
      try {
        await closeServer().catch(() => {});
        await states.closeAll();
        unlisten();
        await runtime.close();
      } finally {
        markClosed();
      }
    })();
    return closing;
  };
  // The SDK's transport does not watch for end of input; a client that exits must still end every command.
  const onGone = () => void close();
  // On 2026-07-28 the process's session is the state of principal `stdio` (a handle opens more).
  const states = new ModernStates({ runtime, routes, instanceId: 'stdio', cwd: session.cwd, stdioSession: session });
  stdin.once('end', onGone);
  stdin.once('close', onGone);
  // A closed stdout (EPIPE) means the client is gone too.
  stdout.once('error', onGone);
  void readOpening(stdin).then(async ({ era, stream }) => {
    if (closing) return;
    if (era === 'modern') {
      const face = new ModernFace({ runtime, states, codec: new StateCodec('stdio'), progressIntervalMs });
      const handle = serveModernStdio(() => face.server(() => 'stdio'), { legacy: 'reject', transport: new ModernStdioTransport(stream, stdout) });
      closeServer = () => handle.close();
      return;
    }
    const server = createMcpServer({ runtime, session, routes, onClose: onGone, progressIntervalMs });
    closeServer = () => server.close();
    await server.connect(new StdioServerTransport(stream, stdout));
  });
  return { runtime, sessionId: session.id, closed, close };
}
