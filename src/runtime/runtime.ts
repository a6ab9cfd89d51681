// The runtime every face sits on: sessions, the tool list, prompt sections, notices and the jobs observer API.
import { EventEmitter } from 'node:events';
import type { EnvRegistry } from '../env/registry.js';
import type { Executor, ExecutorStats, SpillRead } from '../executor/types.js';
import type { JobRegistry } from '../jobs/registry.js';
import { BashTool } from '../tools/bash.js';
import { jobToolDefinitions } from '../tools/job-tools.js';
import type { ToolDefinition } from '../tools/tool.js';
import type { ApprovalHandler } from '../sandbox/approval.js';
import { listTool, type ListedTool } from './listing.js';
import { JobsView } from './jobs-view.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { assembleEnv, assembleExecutor, assembleJobs, assembleSandbox, PROMPT_SECTIONS, type PromptSection } from './assembly.js';
import { parseRuntimeOptions, type RuntimeOptions } from './options.js';
import { checkSameOptions, checkSessionId, Session, type CallEvent, type SessionOptions } from './session.js';
import { nestingProblem } from '../sandbox/workspace.js';
import { loadPolicy } from '../policy/load.js';
import type { CompiledPolicy } from '../policy/rules.js';
import { policyPrompt, runtimeErrors, workspaceRootErrors } from '../contract/index.js';
import { ShellringError } from '../errors.js';

export type { ListedTool };

export type { PromptSection };

export interface Notice {
  sessionId: string;
  jobId: string;
  text: string;
}

export class Runtime {
  readonly env: EnvRegistry;
  readonly executor: Executor;
  /** For observers (a web view) and people: never moves the model's read cursor. */
  readonly jobs: JobsView | undefined;
  /** The sandboxing policy, when commands are confined. */
  readonly sandbox: Sandbox | undefined;
  readonly #registry: JobRegistry | undefined;
  readonly #bash: BashTool;
  readonly #policy: CompiledPolicy | undefined;
  readonly #jobTools: ToolDefinition[];
  readonly #sessions = new Map<string, Session>();
  readonly #events = new EventEmitter();
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(input: RuntimeOptions = {}) {
    const options = parseRuntimeOptions(input);
    // Before anything starts: a policy whose examples fail must stop the runtime, not a call.
    if (options.policy) this.#policy = loadPolicy(options.policy, 'runtime', 'runtime options', 'policy.');
    this.executor = assembleExecutor(options.executor);
    this.env = assembleEnv({ dshHome: options.dshHome, locateSessionJsonl: options.locateSessionJsonl });
    if (options.sandbox) this.sandbox = assembleSandbox(options.sandbox, this.executor, this.env.dshHome);
    if (options.jobs !== false) {
      this.#registry = assembleJobs(this.executor, options.jobs);
      this.#registry.onNotice((notice) => {
        const session = this.#sessions.get(notice.sessionId);
        if (session && !session.closed) this.#events.emit('notice', notice);
      });
      this.jobs = new JobsView(this.#registry);
    }
    this.#bash = new BashTool({
      executor: this.executor,
      env: this.env,
      jobs: this.#registry,
      config: { enableRunInBackground: options.enableRunInBackground, promoteOnTimeout: options.promoteOnTimeout },
      sandbox: this.sandbox,
      approval: options.approval,
      policy: this.#policy,
    });
    this.#jobTools = this.#registry ? jobToolDefinitions() : [];
  }

  /**
   * Opens (or returns the open) agent session with this id. Ids are 1 to 256 characters without control characters;
   * reopening an open id with another `cwd` or `tools` is an error (options left out are not compared).
   */
  session(options: SessionOptions): Session {
    if (this.#closed) throw new ShellringError('SHELLRING_CLOSED', runtimeErrors.closed);
    checkSessionId(options?.id);
    const existing = this.#sessions.get(options.id);
    if (existing && !existing.closed) {
      checkSameOptions(existing, options);
      return existing;
    }
    const session = new Session(options, {
      bash: this.#bash,
      jobs: this.#registry,
      executor: this.executor,
      sandbox: this.sandbox,
      forget: () => this.#sessions.delete(options.id),
      list: (approve, allowed) => this.#list(options.id, approve, allowed),
      onCall: (event) => this.#events.emit('call', event),
      sections: () => this.promptSections(),
    });
    if (session.root) {
      const others = this.sessions().flatMap((open) => (open.root ? [{ id: open.id, root: open.root.path }] : []));
      const problem = nestingProblem(session.root.path, others);
      if (problem) {
        throw new ShellringError('SHELLRING_SANDBOX_ROOT', workspaceRootErrors.nested(session.root.path, problem));
      }
    }
    this.#sessions.set(options.id, session);
    return session;
  }

  /** The open agent sessions, oldest first. */
  sessions(): Session[] {
    return [...this.#sessions.values()].filter((session) => !session.closed);
  }

  /** The tools for a session without its own approval channel or restriction; `session.listTools()` gives a session's. */
  listTools(): ListedTool[] {
    return this.#list(undefined, undefined, undefined);
  }

  #list(sessionId: string | undefined, approve: ApprovalHandler | undefined, allowed: ReadonlySet<string> | undefined): ListedTool[] {
    const tools = [this.#bash.definitionFor(sessionId, approve), ...this.#jobTools];
    return tools.filter((tool) => !allowed || allowed.has(tool.name)).map(listTool);
  }

  /** The executor's output totals and load, for metrics. */
  stats(): ExecutorStats {
    return this.executor.stats();
  }

  /** Opens one of this runtime's spill files (a path from a result), for a face that serves it; refuses any other. */
  readSpill(path: string): Promise<SpillRead> {
    return this.executor.readSpill(path);
  }

  promptSections(): PromptSection[] {
    const policy = this.#policy && policyPrompt({ defaultDecision: this.#policy.default ?? 'allow', rules: this.#policy.rules });
    const bash = policy ? { ...PROMPT_SECTIONS.bash, text: `${PROMPT_SECTIONS.bash.text}\n${policy}` } : PROMPT_SECTIONS.bash;
    const sections: PromptSection[] = [{ ...bash }];
    if (this.#registry) sections.push({ ...PROMPT_SECTIONS.jobs });
    return sections;
  }

  on(event: 'notice', listener: (notice: Notice) => void): () => void;
  /** Every session's tool calls, started and ended (see Session.onCall). */
  on(event: 'call', listener: (event: CallEvent) => void): () => void;
  on(event: 'notice' | 'call', listener: ((notice: Notice) => void) | ((event: CallEvent) => void)): () => void {
    this.#events.on(event, listener);
    return () => this.#events.off(event, listener);
  }

  /** Closes every session (their jobs end without notices), stops the workers; nothing is left running. A second
   * call while the first runs resolves only when that cleanup is done. */
  close(): Promise<void> {
    this.#closed = true;
    this.#closing ??= (async () => {
      await Promise.all([...this.#sessions.values()].map((session) => session.close()));
      await this.#registry?.close();
      await this.executor.close();
      await this.sandbox?.close();
    })();
    return this.#closing;
  }
}

export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  return new Runtime(options);
}
