// The `tools` service: tool definitions with their callers, listed for a model and called by name.
import { callErrors, sessionErrors } from '../contract/index.js';
import { listTool, type ListedTool } from '../runtime/listing.js';
import { checkArguments, checkCallId, checkSignal } from '../tools/call-input.js';
import { errorResult, type CallContext, type ToolDefinition, type ToolResult } from '../tools/tool.js';
import { ShellringError } from '../errors.js';

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
    const { name } = entry.definition;
    if (this.#tools.has(name)) throw new ShellringError('SHELLRING_REGISTRATION', `tool ${JSON.stringify(name)} is already registered`);
    // Converted once per registration: the same registration always lists the same bytes (prompt caches keep hitting).
    const listed = listTool(entry.definition);
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
    if (!tool) return errorResult(new ShellringError('SHELLRING_UNKNOWN_TOOL', sessionErrors.unknownTool(name)));
    // A tool that throws instead of returning its error still answers the model, as `Error: <message>`.
    try {
      return await tool.entry.call(checkArguments(input), checkContext(context));
    } catch (error) {
      return errorResult(error);
    }
  }
}

/** The host's call context, judged before a tool sees it: a bad one fails this call clearly, not deep inside it. */
function checkContext(context: unknown): CallContext {
  if (context === null || typeof context !== 'object' || Array.isArray(context)) {
    throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', callErrors.context(context));
  }
  const { sessionId, cwd, signal, callId, approve } = context as Record<string, unknown>;
  if (typeof sessionId !== 'string') throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', callErrors.sessionId(sessionId));
  if (cwd !== undefined && (typeof cwd !== 'string' || !cwd)) throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', sessionErrors.cwd(cwd));
  return {
    ...(context as CallContext),
    sessionId,
    cwd: cwd as string | undefined,
    signal: checkSignal(signal),
    callId: checkCallId(callId),
    approve: typeof approve === 'function' ? (approve as CallContext['approve']) : undefined,
  };
}
