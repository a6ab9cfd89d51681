// What every tool shares: its definition, the call context, and the result shape (text content + typed value).
import type { z } from 'zod';
import type { ApprovalHandler } from '../sandbox/approval.js';
import type { PinnedRoot } from '../sandbox/workspace.js';
import type { SessionPolicy } from '../policy/session-rules.js';

/** A JSON Schema stated as listed, for a tool that validates no arguments of its own (a zod schema is converted). */
export type ListedSchema = { type: 'object' } & Record<string, unknown>;

export interface ToolDefinition {
  name: string;
  description: string;
  schema: z.ZodType | ListedSchema;
  /** What structuredContent holds on success. */
  outputSchema: z.ZodType | ListedSchema;
}

export interface CallContext {
  sessionId: string;
  /** The session's directory; without it, the executor's configured cwd, then the host's. */
  cwd?: string;
  /** The session's workspace root, pinned when it opened (sandboxed runtimes); without it, resolved per call. */
  root?: PinnedRoot;
  signal?: AbortSignal;
  callId?: string;
  /** Told once the command starts, with a reader of its bytes of output so far. */
  watchOutput?: (bytesSoFar: () => number) => void;
  /** The size a `tty` call's terminal opens with, when the caller gives one (else 80×24). */
  terminalSize?: { cols: number; rows: number };
  /** The session's own approval channel, when it has one (an MCP client that elicits, a console). */
  approve?: ApprovalHandler;
  /** The session's command policy layers (its host's rules, what a person allowed always). */
  policy?: SessionPolicy;
  /** Opens a state of the caller's own and returns its handle (a face with states of its own: MCP 2026-07-28). */
  openState?: () => string;
  /** False where the face delivers no completion notice (MCP 2026-07-28): a hand-off then says how to wait instead. */
  notices?: boolean;
}

export interface ToolResult {
  content: { type: 'text'; text: string }[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
}

export function textResult(text: string, structuredContent?: object): ToolResult {
  const result: ToolResult = { content: [{ type: 'text', text }] };
  if (structuredContent) result.structuredContent = structuredContent as Record<string, unknown>;
  return result;
}

export function errorResult(error: unknown): ToolResult {
  const message = error instanceof Error ? error.message : String(error);
  return { content: [{ type: 'text', text: `Error: ${message}` }], isError: true };
}
