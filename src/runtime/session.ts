// An agent session: its id is DSH_SESSION_ID and the owner of its jobs; its cwd is the base of every workdir.
import { resolve } from 'node:path';
import type { LocalExecutor } from '../executor/local.js';
import type { JobRegistry } from '../jobs/registry.js';
import type { BashTool } from '../tools/bash.js';
import { isSandboxMode, SANDBOX_MODES, type SandboxMode } from '../sandbox/modes.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { callJobTool } from '../tools/job-tools.js';
import { errorResult, type ToolResult } from '../tools/tool.js';
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

interface SessionDeps {
  bash: BashTool;
  jobs: JobRegistry | undefined;
  executor: LocalExecutor;
  sandbox: Sandbox | undefined;
  forget: () => void;
}

export class Session {
  readonly id: string;
  readonly cwd: string;
  readonly #deps: SessionDeps;
  #closed = false;
  #closing: Promise<void> | undefined;

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
    const context = { sessionId: this.id, cwd: this.cwd, signal: options.signal, callId: options.callId };
    if (name === 'bash') return this.#deps.bash.call(args, context);
    if (this.#deps.jobs && (name === 'job_output' || name === 'job_list' || name === 'job_kill')) {
      return callJobTool(this.#deps.jobs, name, args, context);
    }
    return errorResult(new Error(sessionErrors.unknownTool(name)));
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
