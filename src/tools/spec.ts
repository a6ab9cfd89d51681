// One tool as every face reads it: name, annotations, prompt section, where it is offered, and how a composition
// builds its definition and call. The registry (registry.ts) lists them; nothing else names a tool.
import type { EnvRegistry } from '../env/registry.js';
import type { Executor } from '../executor/types.js';
import type { JobRegistry } from '../jobs/registry.js';
import type { CompiledPolicy } from '../policy/rules.js';
import type { ApprovalConfig, ApprovalHandler } from '../sandbox/approval.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { BashToolConfig } from './bash-config.js';
import type { PromptSection } from './prompt-sections.js';
import type { CallContext, ToolDefinition, ToolResult } from './tool.js';

/** What a tool may do to the world, as MCP clients that gate on it read it (titles are contract texts). */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** The services of one composition (createRuntime, or the Cordis services present now). */
export interface ToolServices {
  executor?: Executor;
  env?: EnvRegistry;
  jobs?: JobRegistry;
  sandbox?: Sandbox;
  approval?: ApprovalConfig;
  policy?: CompiledPolicy;
  /** The bash tool's switches (defaults where absent). */
  config?: BashToolConfig;
}

/** A service a tool cannot work without: a composition lacking it does not offer the tool; `build` may rely on it. */
export type ToolNeed = 'executor' | 'env' | 'jobs';

/** A face that offers tools of its own besides the runtime's (a tool offered only there names it). */
export type ToolFace = 'mcp-2026';

/** What a definition or a prompt section depends on besides the composition: the session and its face. */
export interface ToolView {
  sessionId?: string;
  /** The session's own approval channel, if any. */
  approve?: ApprovalHandler;
  /** The face delivers a completion notice when a job finishes (false: MCP 2026-07-28 sends none); default true. */
  notices?: boolean;
}

/** A tool built for one composition. */
export interface BuiltTool {
  /** The definition a session sees: with its own approval channel, its job count and its face, where they matter. */
  definitionFor(view: ToolView): ToolDefinition;
  call(input: unknown, context: CallContext): Promise<ToolResult>;
}

export interface ToolSpec {
  name: string;
  annotations: ToolAnnotations;
  /** Absent: every face offers it (the runtime, both MCP revisions, the Cordis plugins). Else only this face. */
  only?: ToolFace;
  needs: readonly ToolNeed[];
  /** Its section of the system prompt; tools that share one give the same name (it is shown once). `notices`: the
   * face delivers completion notices. */
  prompt?(context: Pick<ToolServices, 'policy'> & { notices: boolean }): PromptSection;
  build(services: ToolServices): BuiltTool;
}

/** Whether `services` hold everything `spec` needs. */
export function provides(services: Pick<ToolServices, ToolNeed>, spec: ToolSpec): boolean {
  return spec.needs.every((need) => services[need] !== undefined);
}
