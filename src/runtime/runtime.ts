// The runtime every face sits on: sessions, the tool list, prompt sections, notices and the jobs observer API.
import { EventEmitter } from 'node:events';
import type { EnvRegistry } from '../env/registry.js';
import type { Executor, ExecutorStats, SpillRead } from '../executor/types.js';
import type { JobRegistry } from '../jobs/registry.js';
import { TOOLS } from '../tools/registry.js';
import { provides, type BuiltTool, type ToolFace, type ToolServices, type ToolSpec, type ToolView } from '../tools/spec.js';
import { orderSections, sandboxSection } from '../tools/prompt-sections.js';
import { listTool, type ListedTool } from './listing.js';
import { JobsView } from './jobs-view.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { askAboutHost } from '../sandbox/network-asks.js';
import { assembleEnv, assembleExecutor, assembleJobs, assembleSandbox, type PromptSection } from './assembly.js';
import { parseRuntimeOptions, type RuntimeOptions } from './options.js';
import { checkSameOptions, checkSessionId, Session, type CallEvent, type SessionOptions } from './session.js';
import { nestingProblem } from '../sandbox/workspace.js';
import { loadPolicy } from '../policy/load.js';
import type { CompiledPolicy } from '../policy/rules.js';
import { runtimeErrors, workspaceRootErrors } from '../contract/index.js';
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
  /** The tool table this runtime offers from (the registry's, unless a test composes its own). */
  readonly toolTable: readonly ToolSpec[];
  readonly #registry: JobRegistry | undefined;
  readonly #policy: CompiledPolicy | undefined;
  /** The table's tools this composition can offer, built once, in table order; `#offered` those every face offers. */
  readonly #tools = new Map<string, { spec: ToolSpec; tool: BuiltTool }>();
  readonly #offered = new Map<string, BuiltTool>();
  readonly #services: ToolServices;
  readonly #sessions = new Map<string, Session>();
  readonly #events = new EventEmitter();
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(input: RuntimeOptions = {}, table: readonly ToolSpec[] = TOOLS) {
    this.toolTable = table;
    const options = parseRuntimeOptions(input);
    // Before anything starts: a policy whose examples fail must stop the runtime, not a call.
    if (options.policy) this.#policy = loadPolicy(options.policy, 'runtime', 'runtime options', 'policy.');
    this.executor = assembleExecutor(options.executor);
    this.env = assembleEnv({ dshHome: options.dshHome, locateSessionJsonl: options.locateSessionJsonl });
    if (options.sandbox) this.sandbox = assembleSandbox(options.sandbox, this.executor, this.env.dshHome);
    this.sandbox?.onNetworkAsk((sessionId, host, port, signal) => {
      const session = this.#sessions.get(sessionId);
      if (!session || session.closed) return Promise.resolve('nobody');
      return askAboutHost(session.approvalChannel, options.approval, { sessionId, host, port, signal });
    });
    if (options.jobs !== false) {
      this.#registry = assembleJobs(this.executor, options.jobs);
      this.#registry.onNotice((notice) => {
        const session = this.#sessions.get(notice.sessionId);
        if (session && !session.closed) this.#events.emit('notice', notice);
      });
      this.jobs = new JobsView(this.#registry);
    }
    this.#services = {
      executor: this.executor,
      env: this.env,
      jobs: this.#registry,
      config: { enableRunInBackground: options.enableRunInBackground, promoteOnTimeout: options.promoteOnTimeout },
      sandbox: this.sandbox,
      approval: options.approval,
      policy: this.#policy,
    };
    for (const spec of table) {
      if (!provides(this.#services, spec)) continue;
      const tool = spec.build(this.#services);
      this.#tools.set(spec.name, { spec, tool });
      if (spec.only === undefined) this.#offered.set(spec.name, tool);
    }
  }

  /** The tools only `face` offers, beside the runtime's: it lists and calls them itself. */
  faceTools(face: ToolFace): { spec: ToolSpec; tool: BuiltTool }[] {
    return [...this.#tools.values()].filter(({ spec }) => spec.only === face);
  }

  /** The table entry named `name`, for a face that states its annotations. */
  toolSpec(name: string): ToolSpec | undefined {
    return this.toolTable.find((spec) => spec.name === name);
  }

  /**
   * Opens (or returns the open) agent session with this id. Ids are 1 to 256 characters without control characters;
   * reopening an open id with another `cwd` or `tools` is an error (options left out are not compared); a `label`
   * given on reopening replaces the session's.
   */
  session(options: SessionOptions): Session {
    if (this.#closed) throw new ShellringError('SHELLRING_CLOSED', runtimeErrors.closed);
    checkSessionId(options?.id);
    const existing = this.#sessions.get(options.id);
    if (existing && !existing.closed) {
      checkSameOptions(existing, options);
      if (options.label !== undefined) existing.setLabel(options.label);
      return existing;
    }
    const session: Session = new Session(options, {
      tools: this.#offered,
      names: this.toolTable.filter((spec) => spec.only === undefined).map((spec) => spec.name),
      jobs: this.#registry,
      executor: this.executor,
      sandbox: this.sandbox,
      forget: () => this.#sessions.delete(options.id),
      list: (view, allowed) => this.#list({ ...view, sessionId: options.id }, allowed),
      onCall: (event) => this.#events.emit('call', event),
      sections: (notices) => this.promptSections({ notices }),
      nesting: (root) => this.#nesting(root, session),
    });
    // At open, as it was given; resolved, once more before its first call (the session refuses its calls then).
    const problem = session.root && this.#nesting(session.root.path, session);
    if (problem) throw new ShellringError('SHELLRING_SANDBOX_ROOT', workspaceRootErrors.nested(session.root!.path, problem));
    this.#sessions.set(options.id, session);
    return session;
  }

  /** Why a session whose workspace is `root` may not stand beside the other live sessions, if it may not. */
  #nesting(root: string, session: Session): string | undefined {
    const others = this.sessions().flatMap((open) => (open !== session && open.root ? [{ id: open.id, root: open.root.path }] : []));
    return nestingProblem(root, others);
  }

  /** The open agent sessions, oldest first. */
  sessions(): Session[] {
    return [...this.#sessions.values()].filter((session) => !session.closed);
  }

  /** The tools for a session without its own approval channel or restriction; `session.listTools()` gives a session's.
   * `notices: false`: as listed by a face that delivers no completion notice. */
  listTools(view: { notices?: boolean } = {}): ListedTool[] {
    return this.#list(view, undefined);
  }

  #list(view: ToolView, allowed: ReadonlySet<string> | undefined): ListedTool[] {
    const tools = [...this.#offered.values()].map((tool) => tool.definitionFor(view));
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

  /**
   * The sections of the tools this composition offers, in prompt order. `notices: false`: as a face that delivers no
   * completion notice tells them. `workspace`: a face without a session of its own (an MCP 2026-07-28 client before
   * its first call) is told the standing sandbox mode of a session there, as a session's own sections end with it.
   */
  promptSections(view: { notices?: boolean; workspace?: string } = {}): PromptSection[] {
    const specs = [...this.#tools.values()].filter(({ spec }) => spec.only === undefined).map(({ spec }) => spec);
    const sections = specs.flatMap((spec) => spec.prompt?.({ policy: this.#policy, notices: view.notices ?? true }) ?? []);
    if (this.sandbox && view.workspace !== undefined) sections.push(sandboxSection(this.sandbox, this.sandbox.defaultMode, view.workspace));
    return orderSections(sections);
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
