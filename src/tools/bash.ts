// The bash tool: validation, background and escalation policy, request assembly, foreground runs and job hand-off.
import { resolve as resolvePath } from 'node:path';
import type { EnvRegistry } from '../env/registry.js';
import type { LocalExecutor } from '../executor/local.js';
import type { ExecSpec, ProcessHandle } from '../executor/types.js';
import type { JobRegistry } from '../jobs/registry.js';
import { bashArgsSchema, parseBashArgs, type BashArgs } from './bash-schema.js';
import { bashJobSource } from './bash-job-source.js';
import { askApproval, type ApprovalConfig } from '../sandbox/approval.js';
import { isSandboxMode, isWider, type SandboxMode } from '../sandbox/modes.js';
import type { Confinement, Sandbox } from '../sandbox/sandbox.js';
import {
  bashDescription,
  bashJobLabel,
  bashToolErrors,
  escalationReason,
  jobTexts,
  markers,
  renderForeground,
  type ForegroundFacts,
} from '../contract/index.js';
import { errorResult, textResult, ToolError, type CallContext, type ToolDefinition, type ToolResult } from './tool.js';

export interface BashToolConfig {
  enableRunInBackground: boolean;
  promoteOnTimeout: boolean;
}

export interface BashToolDeps {
  executor: LocalExecutor;
  env: EnvRegistry;
  jobs?: JobRegistry;
  config: BashToolConfig;
  /** A sandboxing executor's policy: present, the escalation fields are advertised. */
  sandbox?: Sandbox;
  /** The approval service; without `request` (and with policy `ask`) there is none. */
  approval?: ApprovalConfig;
}

export class BashTool {
  readonly definition: ToolDefinition;
  readonly #deps: BashToolDeps;
  readonly #schema: ReturnType<typeof bashArgsSchema>;
  readonly #background: boolean;
  readonly #promotes: boolean;

  constructor(deps: BashToolDeps) {
    this.#deps = deps;
    this.#background = deps.config.enableRunInBackground && deps.jobs !== undefined;
    this.#promotes = this.#background && deps.config.promoteOnTimeout;
    const options = { background: this.#background, promotes: this.#promotes, sandbox: deps.sandbox !== undefined };
    this.#schema = bashArgsSchema(options);
    this.definition = { name: 'bash', description: bashDescription(options), schema: this.#schema };
  }

  async call(input: unknown, context: CallContext): Promise<ToolResult> {
    try {
      const args = parseBashArgs(this.#schema, input);
      this.#checkPolicy(args);
      const mode = await this.#mode(args, context);
      if (context.signal?.aborted) throw new ToolError(bashToolErrors.aborted);
      const spec = await this.#spec(args, context, mode);
      if (args.run_in_background) return this.#background_(args, spec, context);
      return await this.#foreground(args, spec, context);
    } catch (error) {
      return errorResult(error);
    }
  }

  #checkPolicy(args: BashArgs): void {
    const justified = args.justification !== undefined && args.justification.trim() !== '';
    if (args.sandbox_permissions === undefined && justified) throw new ToolError(bashToolErrors.justificationAlone);
    if (args.sandbox_permissions !== undefined && !this.#deps.sandbox) {
      // The pairing is argument validation, so it is judged before the composition is.
      if (args.justification === undefined) throw new ToolError(bashToolErrors.needsJustification);
      if (!justified) throw new ToolError(bashToolErrors.blankJustification);
      throw new ToolError(bashToolErrors.noSandbox);
    }
    if (args.run_in_background) {
      if (!this.#deps.config.enableRunInBackground) throw new ToolError(bashToolErrors.backgroundDisabled);
      if (!this.#deps.jobs) throw new ToolError(bashToolErrors.backgroundUnavailable);
    }
  }

  /** The call's sandbox mode: a one-shot escalation a person approved, else the session's, else the default. */
  async #mode(args: BashArgs, context: CallContext): Promise<SandboxMode | undefined> {
    const sandbox = this.#deps.sandbox;
    if (!sandbox) return undefined;
    const current = sandbox.modeFor(context.sessionId);
    const requested = args.sandbox_permissions;
    if (requested === undefined || requested === current) return current;
    if (!isSandboxMode(requested)) throw new ToolError(bashToolErrors.notWider(requested, current));
    if (args.justification === undefined) throw new ToolError(bashToolErrors.needsJustification);
    if (args.justification.trim() === '') throw new ToolError(bashToolErrors.blankJustification);
    if (!isWider(requested, current)) throw new ToolError(bashToolErrors.notWider(requested, current));
    const approval = this.#deps.approval;
    if (!approval || (!approval.request && approval.policy !== 'never')) {
      throw new ToolError(bashToolErrors.noApprovalService(requested));
    }
    if (!context.sessionId) throw new ToolError(bashToolErrors.noAgent(requested));
    const outcome = await askApproval(approval, {
      sessionId: context.sessionId,
      toolName: 'bash',
      callId: context.callId,
      reason: escalationReason(requested, args.justification.trim()),
      signal: context.signal,
    });
    if (outcome === 'allowed-once') return requested;
    if (outcome === 'rejected') throw new ToolError(bashToolErrors.rejected(requested));
    if (outcome === 'cancelled') throw new ToolError(bashToolErrors.cancelled(requested));
    throw new ToolError(bashToolErrors.approvalUnavailable(requested));
  }

  async #spec(args: BashArgs, context: CallContext, mode: SandboxMode | undefined): Promise<ExecSpec> {
    const dshEnv = this.#deps.env.collect({
      sessionId: context.sessionId,
      callId: context.callId,
      toolName: 'bash',
      cwd: context.cwd,
    });
    let confinement: Confinement | undefined;
    if (mode !== undefined) confinement = await this.#deps.sandbox!.confine(mode, context.cwd, context.sessionId);
    // The canonical workspace root is the base, so confinement and launch name the same directory.
    const base = confinement?.root ?? context.cwd;
    // Only named fields reach the executor: a model's `env` or `stdin` keys never do.
    return this.#deps.executor.resolve({
      command: args.command,
      workdir: resolvePath(base, args.workdir ?? '.'),
      timeoutMs: args.timeoutMs,
      env: confinement?.env,
      dshEnv,
      sessionId: context.sessionId,
      sandboxPolicy: confinement?.policy,
    });
  }

  /** Escalation is advertised while a wider mode exists to ask for. */
  #hint(mode: string | undefined): boolean {
    return this.#deps.sandbox !== undefined && mode !== 'danger-full-access';
  }

  #background_(args: BashArgs, spec: ExecSpec, context: CallContext): ToolResult {
    const jobs = this.#deps.jobs!;
    jobs.assertAdmits(context.sessionId);
    const handle = this.#deps.executor.start(spec, { ring: true });
    const job = jobs.start({
      kind: 'bash',
      label: bashJobLabel(args.command),
      description: args.description.trim(),
      ownerId: context.sessionId,
      callId: context.callId,
      source: bashJobSource(handle, this.#deps.executor.capture, this.#hint(spec.sandbox?.mode)),
    });
    return textResult(jobTexts.started(job.id), { kind: 'background', jobId: job.id });
  }

  async #foreground(args: BashArgs, spec: ExecSpec, context: CallContext): Promise<ToolResult> {
    const jobs = this.#deps.jobs;
    if (!this.#promotes || !jobs || !jobs.admits(context.sessionId)) return this.#deadline(spec, context);
    const handle = this.#deps.executor.start(spec, { ring: true });
    const job = jobs.start({
      kind: 'bash',
      label: bashJobLabel(args.command),
      description: args.description.trim(),
      ownerId: context.sessionId,
      callId: context.callId,
      source: bashJobSource(handle, this.#deps.executor.capture, this.#hint(spec.sandbox?.mode)),
      foreground: true,
    });
    const ended = await waitFor(handle, spec.timeoutMs, context.signal);
    if (ended === 'aborted') {
      jobs.kill(job.id, bashToolErrors.aborted, 'teardown');
      await handle.done;
      jobs.remove(job.id);
      throw new ToolError(bashToolErrors.aborted);
    }
    if (ended === 'timeout') {
      jobs.promote(job.id);
      const seen = jobs.readDelta(job.id).text;
      const output = seen === '' || seen.endsWith('\n') ? seen : `${seen}\n`;
      return textResult(`${output}${jobTexts.promoted(spec.timeoutMs, job.id)}`, {
        kind: 'promoted',
        jobId: job.id,
        timeoutMs: spec.timeoutMs,
        output: seen,
      });
    }
    const outcome = await handle.done;
    const stoppedBy = jobs.get(job.id);
    const stopped = handle.status === 'killed' && stoppedBy?.killReason ? stoppedBy.killReason : undefined;
    const facts: ForegroundFacts = {
      exitCode: outcome.exitCode,
      signal: outcome.signal,
      timedOut: false,
      timeoutMs: spec.timeoutMs,
      ...(stopped !== undefined ? { stopped } : {}),
      ...handle.streams(),
    };
    const sandbox = handle.sandboxFacts();
    if (sandbox) facts.sandbox = sandbox;
    jobs.remove(job.id);
    if (sandbox?.runnerFailed) throw new ToolError(`${outcome.error}\n${markers.runnerFailed(sandbox.mode)}`);
    if (outcome.error !== undefined) throw new ToolError(outcome.error);
    return foregroundResult(facts, this.#hint(sandbox?.mode));
  }

  /** No job behind the call: the executor's deadline kills the command at its timeout. */
  async #deadline(spec: ExecSpec, context: CallContext): Promise<ToolResult> {
    let result;
    try {
      result = await this.#deps.executor.run({ ...spec, signal: context.signal });
    } catch (error) {
      throw new ToolError((error as Error).message);
    }
    if (result.aborted) throw new ToolError(bashToolErrors.aborted);
    if (result.sandbox?.runnerFailed) {
      throw new ToolError(`${result.stderr.text.trim()}\n${markers.runnerFailed(result.sandbox.mode)}`);
    }
    return foregroundResult(result, this.#hint(result.sandbox?.mode));
  }
}

function foregroundResult(facts: ForegroundFacts, escalationAdvertised: boolean): ToolResult {
  return textResult(renderForeground(facts, escalationAdvertised), {
    kind: 'foreground',
    exitCode: facts.exitCode,
    signal: facts.signal,
    timedOut: facts.timedOut,
    aborted: false,
    ...(facts.stopped !== undefined ? { stopped: facts.stopped } : {}),
    timeoutMs: facts.timeoutMs,
    stdout: facts.stdout,
    stderr: facts.stderr,
    ...(facts.sandbox ? { sandbox: facts.sandbox } : {}),
  });
}

function waitFor(handle: ProcessHandle, timeoutMs: number, signal?: AbortSignal): Promise<'done' | 'timeout' | 'aborted'> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    const onAbort = () => finish('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
    void handle.done.then(() => finish('done'));
    function finish(how: 'done' | 'timeout' | 'aborted') {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(how);
    }
  });
}
