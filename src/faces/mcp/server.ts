// One MCP server per runtime session: tools/list and tools/call pass the runtime's schemas and results through as-is.
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type RequestId,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { PromptSection, Runtime } from '../../runtime/runtime.js';
import type { Session } from '../../runtime/session.js';
import { errorResult } from '../../tools/tool.js';
import { sessionErrors } from '../../contract/index.js';
import { packageVersion } from '../version.js';
import { annotated } from './annotations.js';
import { labelFromClient } from './client-label.js';
import { elicitApproval } from './approval.js';
import { checkProgressInterval, followProgress } from './progress.js';
import type { SessionRoutes } from './routes.js';
import { ShellringError } from '../../errors.js';

export interface McpServerOptions {
  runtime: Runtime;
  session: Session;
  routes: SessionRoutes;
  /** Runs once when the transport closes (client gone, DELETE, or server shutdown). */
  onClose?: () => void;
  /** Judges a tool call before it runs: a returned message refuses it (the model reads `Error: <message>`). */
  admit?: (tool: string) => string | undefined;
  /** How often a call that carries a progress token is told about (1 to 20000 ms). Default 15000. */
  progressIntervalMs?: number;
}

/** The logger name on completion notices, so a client can tell them from other log lines. */
export const NOTICE_LOGGER = 'shellring.jobs';

/** tools/call with a name and arguments of any JSON type: the runtime refuses what is wrong, in its own words. */
const LooseCallToolRequestSchema = CallToolRequestSchema.extend({
  params: CallToolRequestSchema.shape.params.extend({ name: z.unknown(), arguments: z.unknown() }),
});

/** The prompt sections as MCP instructions; with `session`, its own (the standing sandbox mode as of connecting). */
export function instructionsOf(runtime: Runtime, session?: Session): string {
  return joinSections((session ?? runtime).promptSections());
}

/** Prompt sections as one instructions text, in their order. */
export function joinSections(sections: readonly PromptSection[]): string {
  return sections.map((section) => section.text).join('\n\n');
}

export function createMcpServer({ runtime, session, routes, onClose, admit, progressIntervalMs }: McpServerOptions): Server {
  const intervalMs = checkProgressInterval(progressIntervalMs);
  const server = new Server(
    { name: 'shellring', version: packageVersion() },
    { capabilities: { tools: {}, logging: {} }, instructions: instructionsOf(runtime, session) },
  );
  // People know the session by its client's name (a console lists it so).
  server.oninitialized = () => labelFromClient(session, server.getClientVersion());
  // Which MCP request a runtime call id belongs to, so an approval prompt rides on that request's stream.
  const calls = new Map<string, RequestId>();

  // The session's own listing: escalation appears only while someone can approve it (this client elicits, or a
  // console answers for it).
  server.setRequestHandler(ListToolsRequestSchema, () => {
    const tools = session.listTools().map((tool) => annotated(runtime, tool));
    return { tools } as { tools: Tool[] };
  });
  // Registered through the base Protocol method: Server's own override validates arguments with the SDK's schema
  // and answers an array or null with raw zod JSON. Here the runtime judges them and answers one clear line.
  Protocol.prototype.setRequestHandler.call(server, LooseCallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    if (typeof name !== 'string') return { ...errorResult(new ShellringError('SHELLRING_UNKNOWN_TOOL', sessionErrors.toolName(name))) };
    const refusal = admit?.(name);
    if (refusal !== undefined) return { ...errorResult(new ShellringError('SHELLRING_REFUSED', refusal)) };
    const callId = randomUUID();
    calls.set(callId, extra.requestId);
    const token = request.params._meta?.progressToken;
    const progress = token === undefined ? undefined : followProgress({ token, intervalMs, send: (notice) => extra.sendNotification(notice) });
    try {
      // A client's notifications/cancelled aborts extra.signal, which kills the command.
      return { ...(await session.callTool(name, request.params.arguments, { signal: extra.signal, callId, watchOutput: progress?.watch })) };
    } catch (error) {
      return { ...errorResult(error) };
    } finally {
      progress?.stop();
      calls.delete(callId);
    }
  });

  const detach = routes.add(session.id, {
    // Notices go out as logging messages (notifications/message, level info, data = the notice text): any MCP
    // client can show or record those, where a custom notification method would be ignored by most of them.
    notify: (notice) => {
      // The transport's session id selects the level a client set with logging/setLevel.
      server
        .sendLoggingMessage({ level: 'info', logger: NOTICE_LOGGER, data: notice.text }, server.transport?.sessionId)
        .catch(() => {});
    },
    approve: (approval) => elicitApproval(server, approval, approval.kind !== 'network' && approval.callId ? calls.get(approval.callId) : undefined),
    canApprove: () => Boolean(server.getClientCapabilities()?.elicitation?.form),
  });
  server.onclose = () => {
    detach();
    onClose?.();
  };
  return server;
}
