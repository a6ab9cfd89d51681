// An agent session: its id is DSH_SESSION_ID and the owner of its jobs; its cwd is the base of every workdir.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { resolve } from 'node:path';
import type { LocalExecutor } from '../executor/local.js';
import type { JobRegistry } from '../jobs/registry.js';
import type { BashTool } from '../tools/bash.js';
import { isSandboxMode, SANDBOX_MODES, type SandboxMode } from '../sandbox/modes.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { callJobTool } from '../tools/job-tools.js';
import { errorResult, type CallContext, type ToolResult } from '../tools/tool.js';
import { sessionErrors } from '../contract/index.js';

export interface SessionOptions {
  id: string;
  /** Default: the host's working directory. */
  cwd?: string;
}

export interface CallOptions {
  signal?: AbortSignal;
  callId?: string;
}

/**
 * A tool call seen from outside (logs, metrics, a console's timeline): `started` before it runs, `ended` once
 * with its result. `args` is what the caller passed, unvalidated; a listener decides what of it to show.
 */
export type CallEvent =
  | { type: 'started'; sessionId: string; callId: string; tool: string; at: number; args: unknown }
  | { type: 'ended'; sessionId: string; callId: string; tool: string; at: number; durationMs: number; result: ToolResult };

interface SessionDeps {
  bash: BashTool;
  jobs: JobRegistry | undefined;
  executor: LocalExecutor;
  sandbox: Sandbox | undefined;
  forget: () => void;
  /** The runtime's own listener, so one subscription sees every session's calls. */
  onCall: (event: CallEvent) => void;
}

export class Session {
  readonly id: string;
  readonly cwd: string;
  readonly #deps: SessionDeps;
  #closed = false;
  #closing: Promise<void> | undefined;
  readonly #calls = new EventEmitter();

  constructor(options: SessionOptions, deps: SessionDeps) {
    if (typeof options?.id !== 'string' || !options.id.trim()) {
      throw Object.assign(new Error('invalid session id: expected a non-empty string'), { code: 'SHELLRING_INVALID_SESSION' });
    }
    this.id = options.id;
    this.cwd = resolve(options.cwd ?? process.cwd());
    this.#deps = deps;
  }

  get closed(): boolean {
    return this.#closed;
  }

  async callTool(name: string, args: unknown, options: CallOptions = {}): Promise<ToolResult> {
    if (this.#closed) return errorResult(new Error(sessionErrors.closed(this.id)));
    const callId = options.callId ?? randomUUID();
    const started = Date.now();
    this.#emit({ type: 'started', sessionId: this.id, callId, tool: name, at: started, args });
    let result: ToolResult;
    try {
      result = await this.#dispatch(name, args, { sessionId: this.id, cwd: this.cwd, signal: options.signal, callId });
    } catch (error) {
      // Listeners learn of the failure as its error result; the caller still gets the exception.
      const ended = Date.now();
      this.#emit({ type: 'ended', sessionId: this.id, callId, tool: name, at: ended, durationMs: ended - started, result: errorResult(error) });
      throw error;
    }
    const ended = Date.now();
    this.#emit({ type: 'ended', sessionId: this.id, callId, tool: name, at: ended, durationMs: ended - started, result });
    return result;
  }

  /** Follows this session's tool calls; returns the unsubscribe function. */
  onCall(listener: (event: CallEvent) => void): () => void {
    this.#calls.on('call', listener);
    return () => this.#calls.off('call', listener);
  }

  #dispatch(name: string, args: unknown, context: CallContext): Promise<ToolResult> {
    if (name === 'bash') return this.#deps.bash.call(args, context);
    if (this.#deps.jobs && (name === 'job_output' || name === 'job_list' || name === 'job_kill')) {
      return callJobTool(this.#deps.jobs, name, args, context);
    }
    return Promise.resolve(errorResult(new Error(sessionErrors.unknownTool(name))));
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
      throw Object.assign(new Error('this runtime has no sandbox; create it with the `sandbox` option'), {
        code: 'SHELLRING_NO_SANDBOX',
      });
    }
    if (!isSandboxMode(mode)) {
      throw Object.assign(new Error(`invalid sandbox mode ${JSON.stringify(mode)}: expected one of ${SANDBOX_MODES.join(', ')}`), {
        code: 'SHELLRING_INVALID_SANDBOX_MODE',
      });
    }
    this.#deps.sandbox.setSessionMode(this.id, mode);
  }

  /** Kills the session's jobs and leftover processes, removes its spill files; emits no notices. */
  close(): Promise<void> {
    this.#closed = true;
    this.#closing ??= (async () => {
      await this.#deps.jobs?.closeOwner(this.id);
      await this.#deps.executor.closeSession(this.id);
      this.#deps.sandbox?.closeSession(this.id);
      this.#deps.forget();
    })();
    return this.#closing;
  }
}
