// The 2026-07-28 tool list: the runtime's tools with an optional `session` handle argument (mirrored into the
// Mcp-Param-Shellring-Session header, so a load balancer can route by it), and session_open that mints handles.
import type { Session } from '../../../runtime/session.js';
import { modernToolDocs } from '../../../contract/index.js';
import { TOOL_ANNOTATIONS } from '../annotations.js';

export const SESSION_OPEN = 'session_open';
/** The header name part a 2026 HTTP client mirrors the `session` argument into: `Mcp-Param-Shellring-Session`. */
export const SESSION_HEADER = 'Shellring-Session';

const sessionOpenTool = {
  name: SESSION_OPEN,
  description: modernToolDocs.sessionOpen,
  inputSchema: { type: 'object' as const, properties: {} },
  outputSchema: {
    type: 'object' as const,
    properties: { session: { type: 'string', description: 'The handle to pass as `session`.' } },
    required: ['session'],
  },
  // Opening a state writes nothing a command can see, and two opens give two states.
  annotations: { title: 'Open a shellring session', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
};

export function modernTools(session: Session) {
  const tools = session.listTools().map((tool) => {
    const properties = (tool.inputSchema.properties ?? {}) as Record<string, unknown>;
    const inputSchema = {
      ...tool.inputSchema,
      type: 'object' as const,
      properties: { ...properties, session: { type: 'string', description: modernToolDocs.session, 'x-mcp-header': SESSION_HEADER } },
    };
    const annotations = TOOL_ANNOTATIONS[tool.name];
    return { ...tool, inputSchema, ...(annotations ? { annotations } : {}) };
  });
  return [...tools, sessionOpenTool];
}
