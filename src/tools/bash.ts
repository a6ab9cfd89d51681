// The bash tool: validation, the command policy stage, escalation approval, request assembly, foreground runs and
// job hand-off.
import { resolve as resolvePath } from 'node:path';
import type { EnvRegistry } from '../env/registry.js';
import type { ExecSpec, Executor, ProcessHandle } from '../executor/types.js';
import { STDERR, STDOUT, type CaptureBackend } from '../capture/types.js';
import type { JobRegistry } from '../jobs/registry.js';
import { bashArgsSchema, parseBashArgs, type BashArgs } from './bash-schema.js';
import { bashOutputSchema } from './output-schemas.js';
import type { BashToolConfig } from './bash-config.js';
import { bashJobSource, settlement } from './bash-job-source.js';
import { askApproval, type ApprovalConfig, type ApprovalHandler } from '../sandbox/approval.js';
import { isSandboxMode, isWider, type SandboxMode } from '../sandbox/modes.js';
import type { Confinement, Sandbox } from '../sandbox/sandbox.js';
import { canonicalNow, verifiedRoot } from '../sandbox/workspace.js';
import { policyStage } from './bash-policy.js';
import type { CompiledPolicy } from '../policy/rules.js';
import {
  appendLine,
  bashDescription,
  bashJobLabel,
  bashToolErrors,
  escalationReason,
  handOffWaiting,
  jobTexts,
  markers,
  renderForeground,
  type ForegroundFacts,
  waitingLine,
} from '../contract/index.js';
import { errorResult, textResult, type CallContext, type ToolDefinition, type ToolResult } from './tool.js';
import { ShellringError } from '../errors.js';
import { callTurn } from './turns.js';

export interface BashToolDeps {
  executor: Executor;
  env: EnvRegistry;
  jobs?: JobRegistry;
  config: BashToolConfig;
  /** A sandboxing executor's policy: present, escalation is possible where someone can approve it. */
  sandbox?: Sandbox;
  /** The approval service: its `request` is every session's channel unless a session has its own. */
  approval?: ApprovalConfig;
  /** The operator's command policy (the runtime layer); sessions may add their own layers. */
  policy?: CompiledPolicy;
}

export class BashTool {
  readonly #deps: BashToolDeps;
  readonly #schema: ReturnType<typeof bashArgsSchema>;
  readonly #background: boolean;
  readonly #promotes: boolean;
  /** Built once each, so one configuration always lists the same bytes (prompt caches keep hitting). */
  readonly #plain: ToolDefinition;
  readonly #escalating: ToolDefinition;
  readonly #plainAtLimit: ToolDefinition;
  readonly #escalatingAtLimit: ToolDefinition;

  constructor(deps: BashToolDeps) {
    this.#deps = deps;
    this.#background = deps.config.enableRunInBackground && deps.jobs !== undefined;
    this.#promotes = this.#background && deps.config.promoteOnTimeout;
    const sandbox = deps.sandbox !== undefined;
    const options = { background: this.#background, promotes: this.#promotes };
    // Calls are judged by the full schema whatever was listed: a field sent anyway meets its own contract error.
    this.#schema = bashArgsSchema({ ...options, sandbox });
    this.#plain = {
      name: 'bash',
      description: bashDescription({ ...options, sandbox, escalation: false }),
      schema: bashArgsSchema({ ...options, sandbox: false }),
      outputSchema: bashOutputSchema,
    };
    this.#escalating = sandbox
      ? { ...this.#plain, description: bashDescription({ ...options, sandbox, escalation: true }), schema: this.#schema }
      : this.#plain;
    // While a session is at its job limit a timeout kills: those definitions promise no hand-over.
    const full = { background: this.#background, promotes: false };
    this.#plainAtLimit = {
      ...this.#plain,
      description: bashDescription({ ...full, sandbox, escalation: false }),
      schema: bashArgsSchema({ ...full, sandbox: false }),
    };
    this.#escalatingAtLimit = sandbox
      ? { ...this.#plain, description: bashDescription({ ...full, sandbox, escalation: true }), schema: bashArgsSchema({ ...full, sandbox }) }
      : this.#plainAtLimit;
  }

  /** The definition for one session: its own approval channel `approve`, else the composition's, if any. */
  definitionFor(sessionId: string | undefined, approve?: ApprovalHandler): ToolDefinition {
    const escalates = this.#escalationAdvertised(sessionId, approve);
    if (this.#atLimit(sessionId)) return escalates ? this.#escalatingAtLimit : this.#plainAtLimit;
    return escalates ? this.#escalating : this.#plain;
  }

  /** Promotion is configured but the session holds as many jobs as it may: a timeout would kill. */
  #atLimit(sessionId: string | undefined): boolean {
    return this.#promotes && sessionId !== undefined && this.#deps.jobs !== undefined && !this.#deps.jobs.admits(sessionId);
  }

  async call(input: unknown, context: CallContext): Promise<ToolResult> {
    // A burst of calls begins over several turns of the event loop (see turns.ts).
    const turn = callTurn();
    if (turn) await turn;
    try {
      // Validation: the arguments, and what this composition offers.
      const args = parseBashArgs(this.#schema, input);
      this.#checkPolicy(args);
      // Approval: the command policy judges what would run, then a sandbox escalation is asked for; both before
      // any preparation, so a refused call prepares and runs nothing.
      const refusal = await policyStage(this.#deps.policy, this.#deps.approval, {
        sessionId: context.sessionId,
        callId: context.callId,
        command: args.command,
        cwd: resolvePath(this.#base(context), args.workdir ?? '.'),
        signal: context.signal,
        approve: context.approve,
        session: context.policy,
        // A person is never asked about a background call that the job limit would then refuse.
        admit: args.run_in_background ? () => this.#deps.jobs?.assertAdmits(context.sessionId) : undefined,
      });
      if (refusal) return { content: [{ type: 'text', text: refusal.text }], isError: true };
      const mode = await this.#mode(args, context);
      if (context.signal?.aborted) throw new ShellringError('SHELLRING_ABORTED', bashToolErrors.aborted);
      // Run.
      if (args.run_in_background) return this.#startBackground(args, context, mode);
      return await this.#foreground(args, await this.#spec(args, context, mode), context);
    } catch (error) {
      return errorResult(error);
    }
  }

  /** The call's base directory: the session's, else the executor's configured one, else the host's. */
  #base(context: CallContext): string {
    return resolvePath(context.cwd ?? this.#deps.executor.cwd ?? process.cwd());
  }

  /**
   * Someone can be asked: the session's own channel, or the composition's where it says it reaches a person for
   * this session; and a policy that asks at all.
   */
  #escalationAdvertised(sessionId: string | undefined, approve: ApprovalHandler | undefined): boolean {
    const approval = this.#deps.approval;
    if (!this.#deps.sandbox || approval?.policy === 'never') return false;
    // Nothing is wider than a mode that confines nothing.
    if (this.#deps.sandbox.modeFor(sessionId) === 'danger-full-access') return false;
    if (approve) return true;
    if (!approval?.request) return false;
    return sessionId === undefined || !approval.available || approval.available(sessionId);
  }

  #checkPolicy(args: BashArgs): void {
    const justified = args.justification !== undefined && args.justification.trim() !== '';
    if (args.sandbox_permissions === undefined && justified) throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', bashToolErrors.justificationAlone);
    if (args.sandbox_permissions !== undefined && !this.#deps.sandbox) {
      // The pairing is argument validation, so it is judged before the composition is.
      if (args.justification === undefined) throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', bashToolErrors.needsJustification);
      if (!justified) throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', bashToolErrors.blankJustification);
      throw new ShellringError('SHELLRING_REFUSED', bashToolErrors.noSandbox);
    }
    if (args.run_in_background) {
      if (!this.#deps.config.enableRunInBackground) throw new ShellringError('SHELLRING_REFUSED', bashToolErrors.backgroundDisabled);
      if (!this.#deps.jobs) throw new ShellringError('SHELLRING_REFUSED', bashToolErrors.backgroundUnavailable);
    }
  }

  /** The call's sandbox mode: a one-shot escalation a person approved, else the session's, else the default. */
  async #mode(args: BashArgs, context: CallContext): Promise<SandboxMode | undefined> {
    const sandbox = this.#deps.sandbox;
    if (!sandbox) return undefined;
    const current = sandbox.modeFor(context.sessionId);
    const requested = args.sandbox_permissions;
    if (requested === undefined || requested === current) return current;
    // A narrower mode is refused whatever the justification: asking again with one would not help.
    if (!isSandboxMode(requested) || !isWider(requested, current)) {
      throw new ShellringError('SHELLRING_REFUSED', bashToolErrors.notWider(requested, current));
    }
    if (args.justification === undefined) throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', bashToolErrors.needsJustification);
    if (args.justification.trim() === '') throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', bashToolErrors.blankJustification);
    const approval = this.#deps.approval;
    const request = context.approve ?? approval?.request;
    if (!request && approval?.policy !== 'never') {
      throw new ShellringError('SHELLRING_REFUSED', bashToolErrors.noApprovalService(requested));
    }
    if (!context.sessionId) throw new ShellringError('SHELLRING_REFUSED', bashToolErrors.noAgent(requested));
    // A person is never asked about a background call that the job limit would then refuse.
    if (args.run_in_background) this.#deps.jobs?.assertAdmits(context.sessionId);
    const justification = args.justification.trim();
    const outcome = await askApproval(
      { policy: approval?.policy, request },
      {
        kind: 'escalation',
        sessionId: context.sessionId,
        toolName: 'bash',
        callId: context.callId,
        command: args.command,
        cwd: resolvePath(this.#base(context), args.workdir ?? '.'),
        mode: requested,
        currentMode: current,
        justification,
        reason: escalationReason(requested, justification),
        signal: context.signal,
      },
    );
    if (outcome === 'allowed-once') return requested;
    if (outcome === 'rejected') throw new ShellringError('SHELLRING_REFUSED', bashToolErrors.rejected(requested));
    if (outcome === 'cancelled') throw new ShellringError('SHELLRING_REFUSED', bashToolErrors.cancelled(requested));
    throw new ShellringError('SHELLRING_REFUSED', bashToolErrors.approvalUnavailable(requested));
  }

  async #spec(args: BashArgs, context: CallContext, mode: SandboxMode | undefined): Promise<ExecSpec> {
    const cwd = this.#base(context);
    const managedEnv = this.#deps.env.collect({
      sessionId: context.sessionId,
      callId: context.callId,
      toolName: 'bash',
      cwd,
    });
    let confinement: Confinement | undefined;
    if (mode !== undefined) {
      // A session's root was resolved once, at open; a confined call runs only while it still names that directory.
      const root = mode === 'danger-full-access' || !context.root ? await canonicalNow(cwd) : await verifiedRoot(context.root);
      confinement = await this.#deps.sandbox!.confine(mode, root, context.sessionId);
    }
    // The canonical workspace root is the base, so confinement and launch name the same directory.
    const base = confinement?.root ?? cwd;
    // Only named fields reach the executor: a model's `env` or `stdin` keys never do.
    return this.#deps.executor.resolve({
      command: args.command,
      workdir: resolvePath(base, args.workdir ?? '.'),
      timeoutMs: args.timeoutMs,
      env: confinement?.env,
      dshEnv: managedEnv,
      sessionId: context.sessionId,
      sandboxPolicy: confinement?.policy,
    });
  }

  /** The escalation hint follows a denial while someone can approve and a wider mode exists to ask for, and only
   * under the session's own mode: a call that already ran escalated was the one retry the hint offers. */
  #hint(mode: string | undefined, context: CallContext): boolean {
    return (
      this.#escalationAdvertised(context.sessionId, context.approve) &&
      mode !== 'danger-full-access' &&
      mode === this.#deps.sandbox!.modeFor(context.sessionId)
    );
  }

  /**
   * Admits the job and returns its id at once, while the command is still being prepared (environment, sandbox
   * probe and confinement). A preparation or startup failure settles the admitted job as failed with its reason,
   * where the model reads it like any other outcome; a kill meanwhile settles it as killed before anything starts.
   */
  #startBackground(args: BashArgs, context: CallContext, mode: SandboxMode | undefined): ToolResult {
    const jobs = this.#deps.jobs!;
    jobs.assertAdmits(context.sessionId);
    const spec = this.#spec(args, context, mode);
    const handle = this.#deps.executor.startWhenReady(spec, { sessionId: context.sessionId, ring: true });
    const job = jobs.start({
      kind: 'bash',
      label: bashJobLabel(args.command),
      description: args.description.trim(),
      ownerId: context.sessionId,
      callId: context.callId,
      source: bashJobSource(handle, this.#deps.executor.capture, this.#hint(mode, context)),
    });
    return textResult(jobTexts.started(job.id), { kind: 'background', jobId: job.id });
  }

  async #foreground(args: BashArgs, spec: ExecSpec, context: CallContext): Promise<ToolResult> {
    const jobs = this.#deps.jobs;
    if (!this.#promotes || !jobs) return this.#deadline(spec, context);
    if (!jobs.admits(context.sessionId)) return this.#deadline(spec, context, jobs.limit);
    const handle = this.#deps.executor.start(spec, { ring: true });
    const job = jobs.start({
      kind: 'bash',
      label: bashJobLabel(args.command),
      description: args.description.trim(),
      ownerId: context.sessionId,
      callId: context.callId,
      source: bashJobSource(handle, this.#deps.executor.capture, this.#hint(spec.sandbox?.mode, context), true),
      foreground: true,
    });
    context.watchOutput?.(outputBytes(this.#deps.executor.capture, handle));
    const started = Date.now();
    const ended = await waitFor(handle, context.signal);
    if (ended === 'aborted') {
      jobs.kill(job.id, bashToolErrors.aborted, 'teardown');
      await handle.done;
      jobs.remove(job.id);
      throw new ShellringError('SHELLRING_ABORTED', bashToolErrors.aborted);
    }
    if (ended === 'timeout' || ended === 'waiting') {
      jobs.promote(job.id);
      // The seed shows the newest output (what the command is doing now); job_output continues after it.
      const { text: seen, unreadBytes } = jobs.readDelta(job.id, true);
      const output = appendLine(seen, unreadBytes > 0 ? `${jobTexts.moreOutput}\n` : '');
      // A command known to wait is handed over without the promise of a notice it may never earn.
      const waiting = handle.waitingFor();
      const after = ended === 'waiting' ? Date.now() - started : spec.timeoutMs;
      const handOff = waiting ? `${waitingLine(waiting)}\n${handOffWaiting(after, job.id)}` : jobTexts.promoted(after, job.id);
      return textResult(`${output}${handOff}`, {
        kind: 'promoted',
        jobId: job.id,
        timeoutMs: spec.timeoutMs,
        output: seen,
        ...(waiting ? { waiting } : {}),
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
    // What the command left running stays visible and killable as a job of the session, until it ends.
    const left = outcome.leftover;
    if (left && jobs.keepLeftover(job.id, jobTexts.leftoverDetail(left, settlement(outcome).detail))) {
      facts.leftover = { count: left, jobId: job.id };
    } else {
      jobs.remove(job.id);
    }
    if (sandbox?.runnerFailed) throw new ShellringError('SHELLRING_SPAWN_FAILED', `${outcome.error}\n${markers.runnerFailed(sandbox.mode)}`);
    if (outcome.error !== undefined) throw new ShellringError('SHELLRING_SPAWN_FAILED', outcome.error);
    return foregroundResult(facts, this.#hint(sandbox?.mode, context));
  }

  /** No job behind the call: the executor's deadline kills the command at its timeout. `jobLimit`: promotion is
   * on but the session is at this limit, which a timed-out result then names. */
  async #deadline(spec: ExecSpec, context: CallContext, jobLimit?: number): Promise<ToolResult> {
    // A command that could not start at all rejects with SHELLRING_SPAWN_FAILED; the model reads its message.
    const watch = context.watchOutput;
    const onStart = watch && ((handle: ProcessHandle) => watch(outputBytes(this.#deps.executor.capture, handle)));
    const result = await this.#deps.executor.run({ ...spec, signal: context.signal, onStart });
    if (result.aborted) throw new ShellringError('SHELLRING_ABORTED', bashToolErrors.aborted);
    if (result.sandbox?.runnerFailed) {
      throw new ShellringError('SHELLRING_SPAWN_FAILED', `${result.error}\n${markers.runnerFailed(result.sandbox.mode)}`);
    }
    // No job can hold what the command left running here: it ends on its own or with the session.
    const { leftover, ...rest } = result;
    const facts: ForegroundFacts = leftover ? { ...rest, leftover: { count: leftover } } : rest;
    if (jobLimit !== undefined && result.timedOut) facts.notMoved = jobLimit;
    return foregroundResult(facts, this.#hint(result.sandbox?.mode, context));
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
    ...(facts.leftover ? { leftover: facts.leftover } : {}),
  });
}

/** Bytes the command has written so far, stdout and stderr together (throws once its capture is freed). */
function outputBytes(capture: CaptureBackend, handle: ProcessHandle): () => number {
  return () => capture.info(handle.captureId, STDOUT).total + capture.info(handle.captureId, STDERR).total;
}

/** `timeout`: the handle's deadline (its spec's timeoutMs, kept by the executor). `waiting`: every process waits for
 * input that can never come, so the timeout need not be waited out. */
function waitFor(handle: ProcessHandle, signal?: AbortSignal): Promise<'done' | 'timeout' | 'aborted' | 'waiting'> {
  return new Promise((resolve) => {
    void handle.deadline.then(() => finish('timeout'));
    const onAbort = () => finish('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
    const unwatch = handle.onWaiting((finding) => {
      if (finding?.kind === 'input') finish('waiting');
    });
    void handle.done.then(() => finish('done'));
    function finish(how: 'done' | 'timeout' | 'aborted' | 'waiting') {
      unwatch();
      signal?.removeEventListener('abort', onAbort);
      resolve(how);
    }
  });
}
