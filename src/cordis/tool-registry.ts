// The `tools` service: tool definitions with their callers, listed for a model and called by name.
import { z } from 'zod';
import type { ListedTool } from '../runtime/runtime.js';
import { sessionErrors } from '../contract/index.js';
import { errorResult, type CallContext, type ToolDefinition, type ToolResult } from '../tools/tool.js';

export interface ToolEntry {
  definition: ToolDefinition;
  call(input: unknown, context: CallContext): Promise<ToolResult>;
}

interface Registered {
  entry: ToolEntry;
  listed: ListedTool;
}

export class ToolRegistry {
  readonly #tools = new Map<string, Registered>();

  /** Adds a tool; the returned function removes exactly this registration (a later one under the same name stays). */
  register(entry: ToolEntry): () => void {
    const { name, description, schema } = entry.definition;
    if (this.#tools.has(name)) throw new Error(`tool ${JSON.stringify(name)} is already registered`);
    // Converted once per registration: the same registration always lists the same bytes (prompt caches keep hitting).
    const listed = { name, description, inputSchema: z.toJSONSchema(schema) as Record<string, unknown> };
    const registered = { entry, listed };
    this.#tools.set(name, registered);
    return () => {
      if (this.#tools.get(name) === registered) this.#tools.delete(name);
    };
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** The tools in registration order, as a model sees them. */
  list(): ListedTool[] {
    return [...this.#tools.values()].map(({ listed }) => structuredClone(listed));
  }

  async call(name: string, input: unknown, context: CallContext): Promise<ToolResult> {
    const tool = this.#tools.get(name);
    if (!tool) return errorResult(new Error(sessionErrors.unknownTool(name)));
    // A tool that throws instead of returning its error still answers the model, as `Error: <message>`.
    try {
      return await tool.entry.call(input, context);
    } catch (error) {
      return errorResult(error);
    }
  }
}
