// The tool list a model sees: name, description, input and output JSON Schemas, converted once per definition.
import type { ToolDefinition } from '../tools/tool.js';
import { toolJsonSchema } from '../tools/json-schema.js';

export interface ListedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
}

/** Converted once per definition: the same configuration always lists the same bytes (prompt caches keep hitting). */
const listed = new WeakMap<ToolDefinition, ListedTool>();

export function listTool(definition: ToolDefinition): ListedTool {
  let tool = listed.get(definition);
  if (!tool) {
    tool = {
      name: definition.name,
      description: definition.description,
      inputSchema: toolJsonSchema(definition.schema),
      outputSchema: toolJsonSchema(definition.outputSchema),
    };
    listed.set(definition, tool);
  }
  return structuredClone(tool);
}
