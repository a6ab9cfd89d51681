// MCP tool annotations: each tool's registry entry states what it may do to the world; the faces list them with it.
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { Runtime } from '../../runtime/runtime.js';
import type { ListedTool } from '../../runtime/listing.js';
import { TOOLS } from '../../tools/registry.js';

export const TOOL_ANNOTATIONS: Readonly<Record<string, ToolAnnotations>> = Object.fromEntries(TOOLS.map((spec) => [spec.name, spec.annotations]));

/** `tool` with the annotations its entry in `runtime`'s table states, as MCP lists them. */
export function annotated<T extends ListedTool>(runtime: Runtime, tool: T): T & { annotations?: ToolAnnotations } {
  const annotations = runtime.toolSpec(tool.name)?.annotations;
  return annotations ? { ...tool, annotations: { ...annotations } } : tool;
}
