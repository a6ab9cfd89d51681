// The JSON Schema a client sees for a tool's input or output, generated from its zod schema.
import { z } from 'zod';
import type { ListedSchema } from './tool.js';

/**
 * zod writes a loose object as `additionalProperties: {}`, which says nothing JSON Schema does not already assume
 * and which schema-portability checks (the MCP Inspector's among them) flag: it is dropped at every depth.
 */
export function toolJsonSchema(schema: z.ZodType | ListedSchema): Record<string, unknown> {
  // A schema stated as listed goes out as written (a copy: the caller's listing is its own).
  if (!(schema instanceof z.ZodType)) return structuredClone(schema);
  return withoutEmptyAdditional(z.toJSONSchema(schema)) as Record<string, unknown>;
}

function withoutEmptyAdditional(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutEmptyAdditional);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    const empty = key === 'additionalProperties' && value !== null && typeof value === 'object' && Object.keys(value).length === 0;
    if (!empty) out[key] = withoutEmptyAdditional(value);
  }
  return out;
}
