// The 2026-07-28 tool list: the runtime's tools with an optional `session` handle argument (mirrored into the
// Mcp-Param-Shellring-Session header, so a load balancer can route by it), then the table's tools only this face
// offers (session_open, which mints handles).
import type { Runtime } from '../../../runtime/runtime.js';
import type { Session } from '../../../runtime/session.js';
import { listTool } from '../../../runtime/listing.js';
import { modernToolDocs } from '../../../contract/index.js';
import { annotated } from '../annotations.js';

/** The face the table names for tools offered here only. */
export const MODERN_FACE = 'mcp-2026';
/** The header name part a 2026 HTTP client mirrors the `session` argument into: `Mcp-Param-Shellring-Session`. */
export const SESSION_HEADER = 'Shellring-Session';

export function modernTools(runtime: Runtime, session: Session) {
  const tools = session.listTools().map((tool) => {
    const properties = (tool.inputSchema.properties ?? {}) as Record<string, unknown>;
    const inputSchema = {
      ...tool.inputSchema,
      type: 'object' as const,
      properties: { ...properties, session: { type: 'string', description: modernToolDocs.session, 'x-mcp-header': SESSION_HEADER } },
    };
    return annotated(runtime, { ...tool, inputSchema });
  });
  const own = runtime.faceTools(MODERN_FACE).map(({ tool }) => annotated(runtime, listTool(tool.definitionFor({ sessionId: session.id, notices: false }))));
  return [...tools, ...own];
}
