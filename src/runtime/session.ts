// An agent session: its id is DSH_SESSION_ID and the owner of its jobs; its cwd is the base of every workdir.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { resolve } from 'node:path';
import type { Executor } from '../executor/types.js';
import type { JobRegistry } from '../jobs/registry.js';
import { isSandboxMode, SANDBOX_MODES, type SandboxMode } from '../sandbox/modes.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { pinRoot, type PinnedRoot } from '../sandbox/workspace.js';
import type { ApprovalHandler } from '../sandbox/approval.js';
import type { BuiltTool } from '../tools/spec.js';
import { orderSections, sandboxSection } from '../tools/prompt-sections.js';
import { checkArguments, checkOptions, type CallOptions } from '../tools/call-input.js';
import { errorResult, type CallContext, type ToolResult } from '../tools/tool.js';
import type { ToolCallRest, ToolCallResult, ToolName, ToolResultsMap } from '../tools/tool-types.js';
import { MAX_SESSION_ID_CHARS, MAX_SESSION_LABEL_CHARS, sessionErrors, workspaceRootErrors } from '../contract/index.js';
import type { PromptSection } from './assembly.js';
import type { ListedTool } from './listing.js';
import { parseConfig, ShellringError } from '../errors.js';
import { domainsSchema, type DomainsConfigInput } from '../sandbox/network-config.js';
import { loadPolicy } from '../policy/load.js';
import type { PolicyConfig } from '../policy/config.js';
import { SessionPolicy } from '../policy/session-rules.js';

export type { CallOptions };

export interface SessionOptions {
  id: string;
  /** Default: the executor's configured cwd, else the host's working directory. */
  cwd?: string;
  /** The tools this session's agent may use (listed and callable); default: all the runtime offers. */
  tools?: readonly string[];
  /**
   * The embedding host's command policy for this session, a layer under the runtime's: its decisions add to the
   * operator's (the strictest wins), never relax them.
   */
  policy?: PolicyConfig;
  /**
   * A name for people: a console lists the session by it (the MCP faces set the client's name). At most 200
   * characters, no control characters; reopening an open session with a label replaces it.
   */
  label?: string;
}

/**
 * A tool call seen from outside (logs, metrics, a console's timeline): `started` before it runs, `ended` once
 * with its result. `args` is what the caller passed, unvalidated; a listener decides what of it to show.
 */
export type CallEvent =
  | { type: 'started'; sessionId: string; callId: string; tool: string; at: number; args: unknown }
  | {
      type: 'ended';
      sessionId: string;
      callId: string;
      tool: string;
      at: number;
      durationMs: number;
      result: ToolResult;
      /**
       * Set when the call returned only to ask its client for input (an approval, MCP 2026-07-28): a call with the
       * same callId before this time continues it, and `result` is what the model would read if none does.
       */
      suspendedUntil?: number;
    };

interface SessionDeps {
  /** The runtime's tools by name, as this composition offers them. */
  tools: ReadonlyMap<string, BuiltTool>;
  /** Every tool the runtime's table offers; a session's `tools` names a subset of them. */
  names: readonly string[];
  jobs: JobRegistry | undefined;
  executor: Executor;
  sandbox: Sandbox | undefined;
  forget: () => void;
  /** The runtime's listing for a session with this approval channel and face, and this tool restriction. */
  list: (view: { approve?: ApprovalHandler; notices: boolean }, allowed: ReadonlySet<string> | undefined) => ListedTool[];
  /** The runtime's own listener, so one subscription sees every session's calls. */
  onCall: (event: CallEvent) => void;
  /** The runtime's fixed prompt sections, as a face that does or does not deliver completion notices tells them. */
  sections: (notices: boolean) => PromptSection[];
  /** Why a session at this canonical root may not open beside the runtime's other live sessions, if it may not. */
  nesting: (root: string) => string | undefined;
}

export class Session {
  readonly id: string;
  readonly cwd: string;
  #label: string | undefined;
  /** The canonical workspace root, being resolved from when the session opened (runtimes with a sandbox). */
  readonly #pinning: Promise<PinnedRoot> | undefined;
  #pinned: PinnedRoot | undefined;
  /** The tools this session's agent may use, when restricted. */
  readonly tools: readonly string[] | undefined;
  readonly #allowed: ReadonlySet<string> | undefined;
  readonly #deps: SessionDeps;
  readonly #policy: SessionPolicy;
  #approve: ApprovalHandler | undefined;
  #notices = true;
  #closed = false;
  #closing: Promise<void> | undefined;
  readonly #calls = new EventEmitter();

  constructor(options: SessionOptions, deps: SessionDeps) {
    checkSessionId(options?.id);
    if (options.cwd !== undefined && (typeof options.cwd !== 'string' || !options.cwd)) {
      throw new ShellringError('SHELLRING_INVALID_SESSION', sessionErrors.cwd(options.cwd));
    }
    this.id = options.id;
    if (options.label !== undefined) this.setLabel(options.label);
    this.cwd = resolve(options.cwd ?? deps.executor.cwd ?? process.cwd());
    // Pinned from here, once, off the event loop (no call runs before it is): a later swap of a path component cannot
    // move where confined commands may write. A root that nests with another's only once resolved fails each call.
    this.#pinning = deps.sandbox ? pinRoot(this.cwd).then((root) => this.#pin(root, deps.nesting(root.path))) : undefined;
    // Its failure is each call's to tell.
    this.#pinning?.catch(() => {});
    this.tools = options.tools === undefined ? undefined : Object.freeze(checkTools(options.tools, deps.names));
    this.#allowed = this.tools && new Set(this.tools);
    this.#policy = new SessionPolicy(options.policy === undefined ? undefined : loadPolicy(options.policy, 'session', 'session options', 'policy.'));
    this.#deps = deps;
  }

  /** The name people know this session by, if it has one. */
  get label(): string | undefined {
    return this.#label;
  }

  /** Names the session for people (a face learns its client's name after opening it). */
  setLabel(label: string): void {
    if (typeof label !== 'string' || [...label].length > MAX_SESSION_LABEL_CHARS || CONTROL.test(label)) {
      throw new ShellringError('SHELLRING_INVALID_SESSION', sessionErrors.label(label));
    }
    this.#label = label.trim() || undefined;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The workspace root (runtimes with a sandbox): the pinned one, or until it is, the path the session opened at. */
  get root(): PinnedRoot | undefined {
    return this.#pinned ?? (this.#pinning && { path: this.cwd });
  }

  #pin(root: PinnedRoot, problem: string | undefined): PinnedRoot {
    if (problem) throw new ShellringError('SHELLRING_SANDBOX_ROOT', workspaceRootErrors.nested(root.path, problem));
    return (this.#pinned = root);
  }

  /** This session's own approval channel, if it has one (`setApprovalChannel`). */
  get approvalChannel(): ApprovalHandler | undefined {
    return this.#approve;
  }

  /** The tools as this session's model sees them: its restriction applied, escalation only where it can be approved. */
  listTools(): ListedTool[] {
    return this.#deps.list({ approve: this.#approve, notices: this.#notices }, this.#allowed);
  }

  /**
   * The prompt sections for this session's model: the runtime's fixed ones, then, where commands are confined, the
   * standing sandbox mode and what a command can write as runtime context (it follows setSandboxMode).
   */
  promptSections(): PromptSection[] {
    const sections = this.#deps.sections(this.#notices);
    const sandbox = this.#deps.sandbox;
    if (sandbox) sections.push(sandboxSection(sandbox, sandbox.modeFor(this.id), this.cwd, this.id));
    return orderSections(sections);
  }

  /**
   * Says whether this session's face delivers completion notices (the runtime's `notice` events) to its model: true
   * unless a face says otherwise (MCP 2026-07-28 sends no unsolicited message). Where none come, the texts that would
   * promise one (hand-offs, the job prompt, the bash description) say how to wait instead.
   */
  setNotices(delivered: boolean): void {
    this.#notices = delivered;
  }

  /**
   * Gives this session its own approval channel (an MCP client that elicits, a console a person watches), or
   * removes it. While a channel exists, bash lists the escalation fields and hints at them after a denial.
   */
  setApprovalChannel(handler: ApprovalHandler | undefined): void {
    if (handler !== undefined && typeof handler !== 'function') {
      throw new ShellringError('SHELLRING_INVALID_CONFIG', sessionErrors.approvalChannel);
    }
    this.#approve = handler;
  }

  /** A runtime tool by its name: its arguments and its structured result are typed (see tool-types.ts). */
  callTool<N extends ToolName>(name: N, ...rest: ToolCallRest<N>): Promise<ToolCallResult<ToolResultsMap[N]>>;
  /** A tool by a name known only at run time (an MCP client's call): an unknown one is the call's error result. */
  callTool<N extends string>(name: string extends N ? N : never, args?: unknown, options?: CallOptions | null): Promise<ToolResult>;
  async callTool(name: string, args?: unknown, options?: CallOptions | null): Promise<ToolResult> {
    if (this.#closed) return errorResult(new ShellringError('SHELLRING_CLOSED', sessionErrors.closed(this.id)));
    let checked: CallOptions;
    try {
      checked = checkOptions(options);
    } catch (error) {
      return errorResult(error);
    }
    const callId = checked.callId ?? randomUUID();
    const started = Date.now();
    this.#emit({ type: 'started', sessionId: this.id, callId, tool: name, at: started, args });
    const result = await this.#dispatch(name, args, {
      sessionId: this.id,
      cwd: this.cwd,
      signal: checked.signal,
      callId,
      watchOutput: checked.watchOutput,
      ...(checked.terminalSize ? { terminalSize: checked.terminalSize } : {}),
      approve: this.#approve,
      policy: this.#policy,
      notices: this.#notices,
    });
    const ended = Date.now();
    const suspendedUntil = checked.suspended?.();
    this.#emit({
      type: 'ended',
      sessionId: this.id,
      callId,
      tool: name,
      at: ended,
      durationMs: ended - started,
      result,
      ...(suspendedUntil !== undefined ? { suspendedUntil } : {}),
    });
    return result;
  }

  /** The argv prefixes a person allowed always for this session, in the order they were allowed. */
  get approvedCommands(): readonly (readonly string[])[] {
    return this.#policy.approved;
  }

  /** Follows this session's tool calls; returns the unsubscribe function. */
  onCall(listener: (event: CallEvent) => void): () => void {
    this.#calls.on('call', listener);
    return () => this.#calls.off('call', listener);
  }

  /** Never throws: every failure, the caller's included, is the call's error result. */
  async #dispatch(name: string, args: unknown, context: Omit<CallContext, 'root'>): Promise<ToolResult> {
    try {
      const tool = this.#deps.tools.get(name);
      if (!tool) throw new ShellringError('SHELLRING_UNKNOWN_TOOL', sessionErrors.unknownTool(name));
      if (this.#allowed && !this.#allowed.has(name)) throw new ShellringError('SHELLRING_REFUSED', sessionErrors.notAllowed(name));
      const root = await this.#pinning;
      return await tool.call(checkArguments(args), root ? { ...context, root } : context);
    } catch (error) {
      return errorResult(error);
    }
  }

  #emit(event: CallEvent): void {
    // An observer's fault must not fail the call it observes.
    for (const listener of [(e: CallEvent) => this.#deps.onCall(e), ...(this.#calls.listeners('call') as ((e: CallEvent) => void)[])]) {
      try {
        listener(event);
      } catch {
        // Ignored on purpose: see above.
      }
    }
  }

  /** Changes this session's standing sandbox mode (a person's decision, not the model's). */
  setSandboxMode(mode: SandboxMode): void {
    if (!this.#deps.sandbox) {
      throw new ShellringError('SHELLRING_NO_SANDBOX', sessionErrors.noSandbox);
    }
    if (!isSandboxMode(mode)) {
      throw new ShellringError('SHELLRING_INVALID_SANDBOX_MODE', sessionErrors.sandboxMode(mode, SANDBOX_MODES));
    }
    this.#deps.sandbox.setSessionMode(this.id, mode);
  }

  /**
   * Replaces this session's domain network policy (a person's decision, not the model's), live: the session's next
   * connection is judged by it, connections already open stay. Only where the runtime's network is by name.
   */
  setNetwork(network: DomainsConfigInput): void {
    const sandbox = this.#deps.sandbox;
    if (!sandbox) throw new ShellringError('SHELLRING_NO_SANDBOX', sessionErrors.noSandbox);
    if (typeof sandbox.networkFor(undefined) !== 'object') throw new ShellringError('SHELLRING_INVALID_CONFIG', sessionErrors.noDomains);
    sandbox.setSessionNetwork(this.id, parseConfig(domainsSchema, network, 'session network'));
  }

  /** Kills the session's jobs and leftover processes, removes its spill files; emits no notices. */
  close(): Promise<void> {
    this.#closed = true;
    this.#closing ??= (async () => {
      await this.#deps.jobs?.closeOwner(this.id);
      await this.#deps.executor.closeSession(this.id);
      await this.#deps.sandbox?.closeSession(this.id);
      this.#deps.forget();
    })();
    return this.#closing;
  }
}

/** Control characters (C0, DEL, C1): an id travels in every command's environment and in logs, one line each. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** An id is short enough for an environment variable (the kernel refuses one over 128 KiB) and prints on one line. */
export function checkSessionId(id: unknown): asserts id is string {
  const ok =
    typeof id === 'string' &&
    id.trim() !== '' &&
    id.length <= MAX_SESSION_ID_CHARS * 2 &&
    [...id].length <= MAX_SESSION_ID_CHARS &&
    !CONTROL.test(id);
  if (!ok) throw new ShellringError('SHELLRING_INVALID_SESSION', sessionErrors.id(id));
}

/** Reopening an open session with other options is an error: they would otherwise be ignored without a word. */
export function checkSameOptions(open: Session, options: SessionOptions): void {
  if (options.cwd !== undefined && typeof options.cwd === 'string' && resolve(options.cwd) !== open.cwd) {
    throw new ShellringError('SHELLRING_INVALID_SESSION', sessionErrors.reopened(open.id, sessionErrors.reopenedCwd(open.cwd)));
  }
  if (options.tools !== undefined) {
    const same = Array.isArray(options.tools) && open.tools !== undefined && sameNames(options.tools, open.tools);
    if (!same) {
      throw new ShellringError('SHELLRING_INVALID_SESSION', sessionErrors.reopened(open.id, sessionErrors.reopenedTools(open.tools)));
    }
  }
}

function sameNames(a: readonly unknown[], b: readonly string[]): boolean {
  const set = new Set(b);
  return new Set(a).size === set.size && a.every((name) => set.has(name as string));
}

/** A restriction names shellring's tools only: a typo would otherwise hide a tool without a word. */
function checkTools(tools: unknown, names: readonly string[]): string[] {
  if (!Array.isArray(tools)) {
    throw new ShellringError('SHELLRING_INVALID_SESSION', sessionErrors.tools(tools));
  }
  for (const name of tools) {
    if (!(names as readonly unknown[]).includes(name)) {
      throw new ShellringError('SHELLRING_INVALID_SESSION', sessionErrors.unknownRestriction(name));
    }
  }
  return [...tools] as string[];
}
