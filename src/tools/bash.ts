// The bash tool: validation, the command policy stage, escalation approval, request assembly, foreground runs and
// job hand-off.
import { resolve as resolvePath } from 'node:path';
import type { EnvRegistry } from '../env/registry.js';
import type { ExecSpec, Executor, ProcessHandle } from '../executor/types.js';
import { STDERR, STDOUT, type CaptureBackend } from '../capture/types.js';
import type { JobRegistry } from '../jobs/registry.js';
import { parseBashArgs, type BashArgs, type bashArgsSchema } from './bash-schema.js';
import { BashDefinitions } from './bash-definitions.js';
import type { BashToolConfig } from './bash-config.js';
import { bashJobSource, settlement, type SandboxTelling } from './bash-job-source.js';
import type { ApprovalConfig, ApprovalHandler } from '../sandbox/approval.js';
import type { SandboxMode } from '../sandbox/modes.js';
import type { Confinement, Sandbox } from '../sandbox/sandbox.js';
import { canonicalNow, verifiedRoot } from '../sandbox/workspace.js';
import { lookupFailed } from '../sandbox/lookup-failures.js';
import { policyStage } from './bash-policy.js';
import { callMode } from './bash-escalation.js';
import type { CompiledPolicy } from '../policy/rules.js';
import {
  appendLine,
  bashJobLabel,
  bashToolErrors,
  handOffWaiting,
  jobTexts,
  markers,
  readableSummary,
  renderForeground,
  type ForegroundFacts,
  type NetworkBlock,
  TERMINAL_SIZE,
  waitingLine,
} from '../contract/index.js';
import { errorResult, textResult, type CallContext, type ToolDefinition, type ToolResult } from './tool.js';
import type { ToolView } from './spec.js';
import { ShellringError } from '../errors.js';
import { callTurn } from './turns.js';
import { admitTerminal } from './job-input.js';
import type { BashBackgroundResult, BashForegroundResult, BashPromotedResult } from './tool-types.js';

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
  readonly #definitions: BashDefinitions;

  constructor(deps: BashToolDeps) {
    this.#deps = deps;
    this.#background = deps.config.enableRunInBackground && deps.jobs !== undefined;
    this.#promotes = this.#background && deps.config.promoteOnTimeout;
    const limits = deps.executor.commandLimits;
    this.#definitions = new BashDefinitions({ background: this.#background, promotes: this.#promotes, sandbox: deps.sandbox !== undefined, limits });
    this.#schema = this.#definitions.callSchema();
  }

  /** The definition for one session: its own approval channel, else the composition's, if any; its face's notices. */
  definitionFor(view: ToolView): ToolDefinition {
    return this.#definitions.get({
      escalates: this.#escalationAdvertised(view.sessionId, view.approve),
      atLimit: this.#atLimit(view.sessionId),
      notices: view.notices ?? true,
    });
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
      const cwd = resolvePath(this.#base(context), args.workdir ?? '.');
      const refusal = await policyStage(this.#deps.policy, this.#deps.approval, {
        sessionId: context.sessionId,
        callId: context.callId,
        command: args.command,
        cwd,
        signal: context.signal,
        approve: context.approve,
        session: context.policy,
        // A person is never asked about a background call that the job limit would then refuse.
        admit: args.run_in_background ? () => this.#deps.jobs?.assertAdmits(context.sessionId) : undefined,
      });
      if (refusal) return { content: [{ type: 'text', text: refusal.text }], isError: true };
      const mode = await callMode(this.#deps, args, context, cwd);
      if (context.signal?.aborted) throw new ShellringError('SHELLRING_ABORTED', bashToolErrors.aborted);
      // Run, and tell what happened in this call's terms.
      if (args.tty) admitTerminal(this.#deps.jobs!, context.sessionId);
      const told = this.#told(args, context, mode);
      if (args.run_in_background) return this.#startBackground(args, context, mode, told);
      return await this.#foreground(args, await this.#spec(args, context, mode), context, told);
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
    if (args.run_in_background || args.tty) {
      if (!this.#deps.config.enableRunInBackground) throw new ShellringError('SHELLRING_REFUSED', bashToolErrors.backgroundDisabled);
      if (!this.#deps.jobs) throw new ShellringError('SHELLRING_REFUSED', bashToolErrors.backgroundUnavailable);
    }
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
      ...(args.tty ? { terminal: context.terminalSize ?? TERMINAL_SIZE } : {}),
    });
  }

  /** The mode of an approved escalation the call runs under (wider than its session's own), if it does. */
  #escalation(mode: SandboxMode | undefined, context: CallContext): SandboxMode | undefined {
    return mode !== undefined && mode !== this.#deps.sandbox!.modeFor(context.sessionId) ? mode : undefined;
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
  #startBackground(args: BashArgs, context: CallContext, mode: SandboxMode | undefined, told: Telling): ToolResult {
    const jobs = this.#deps.jobs!;
    jobs.assertAdmits(context.sessionId);
    const spec = this.#spec(args, context, mode);
    const mark = this.#deps.sandbox?.networkMark(context.sessionId);
    const handle = this.#deps.executor.startWhenReady(spec, { sessionId: context.sessionId, ring: true, terminal: args.tty === true });
    const escalation = this.#escalation(mode, context);
    const job = jobs.start({
      kind: 'bash',
      label: bashJobLabel(args.command),
      description: args.description.trim(),
      ownerId: context.sessionId,
      callId: context.callId,
      source: bashJobSource(handle, this.#deps.executor.capture, { ...told, networkBlocked: this.#blocked(context, mark) }),
      ...(escalation ? { escalation } : {}),
    });
    const started = jobTexts.started(job.id);
    const text = escalation ? `${started}\n${jobTexts.escalated(job.id, escalation)}` : started;
    return textResult(text, { kind: 'background', jobId: job.id } satisfies BashBackgroundResult);
  }

  async #foreground(args: BashArgs, spec: ExecSpec, context: CallContext, told: Telling): Promise<ToolResult> {
    const jobs = this.#deps.jobs;
    // Refusals of the session's proxy from here on are this call's (a concurrent call of the session shares them).
    const mark = this.#deps.sandbox?.networkMark(context.sessionId);
    if (!this.#promotes || !jobs) return this.#deadline(spec, context, told, mark);
    if (!jobs.admits(context.sessionId)) return this.#deadline(spec, context, told, mark, jobs.limit);
    const handle = this.#deps.executor.start(spec, { ring: true });
    const escalation = spec.sandbox?.escalated ? spec.sandbox.mode : undefined;
    const job = jobs.start({
      kind: 'bash',
      label: bashJobLabel(args.command),
      description: args.description.trim(),
      ownerId: context.sessionId,
      callId: context.callId,
      source: bashJobSource(handle, this.#deps.executor.capture, told, true),
      foreground: true,
      ...(escalation ? { escalation } : {}),
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
      let output = appendLine(seen, unreadBytes > 0 ? `${jobTexts.moreOutput}\n` : '');
      if (told.cappedFrom) output += `${markers.timeoutCapped(told.cappedFrom.asked, told.cappedFrom.cap)}\n`;
      // A command known to wait is handed over without the promise of a notice it may never earn.
      const waiting = handle.waitingFor();
      const after = ended === 'waiting' ? Date.now() - started : spec.timeoutMs;
      const handOff = waiting ? `${waitingLine(waiting)}\n${handOffWaiting(after, job.id)}` : jobTexts.promoted(after, job.id, told.notices);
      const covered = escalation ? `\n${jobTexts.escalated(job.id, escalation)}` : '';
      return textResult(`${output}${handOff}${covered}`, {
        kind: 'promoted',
        jobId: job.id,
        timeoutMs: spec.timeoutMs,
        output: seen,
        ...(waiting ? { waiting } : {}),
      } satisfies BashPromotedResult);
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
      ...(outcome.supervisionEnded ? { supervisionEnded: true } : {}),
      ...handle.streams(),
      ...this.#endedFacts(outcome.ended),
    };
    const sandbox = handle.sandboxFacts();
    if (sandbox) facts.sandbox = sandbox;
    this.#addBlocked(facts, context, mark);
    // What the command left running stays visible and killable as a job of the session, until it ends; an escalated
    // command's ended with it.
    const left = outcome.leftover;
    if (left && outcome.leftoverEnded) {
      facts.leftover = { count: left, ended: true };
      jobs.remove(job.id);
    } else if (left && jobs.keepLeftover(job.id, jobTexts.leftoverDetail(left, settlement(outcome).detail))) {
      facts.leftover = { count: left, jobId: job.id };
    } else {
      jobs.remove(job.id);
    }
    if (sandbox?.runnerFailed) throw new ShellringError('SHELLRING_SPAWN_FAILED', `${outcome.error}\n${markers.runnerFailed(sandbox.mode)}`);
    if (outcome.error !== undefined) throw new ShellringError('SHELLRING_SPAWN_FAILED', outcome.error);
    return foregroundResult(facts, told);
  }

  /** The session's refused connections since `mark`, collected when asked (a job's, once it settled). */
  #blocked(context: CallContext, mark: number | undefined): () => NetworkBlock[] | undefined {
    return () => this.#deps.sandbox?.networkBlocked(context.sessionId, mark);
  }

  #addBlocked(facts: ForegroundFacts, context: CallContext, mark: number | undefined): void {
    const blocked = this.#deps.sandbox?.networkBlocked(context.sessionId, mark);
    if (blocked) facts.networkBlocked = blocked;
    if (mark !== undefined && lookupFailed(facts)) facts.lookupFailed = true;
  }

  /** No job behind the call: the executor's deadline kills the command at its timeout. `jobLimit`: promotion is
   * on but the session is at this limit, which a timed-out result then names. */
  async #deadline(spec: ExecSpec, context: CallContext, told: Telling, mark: number | undefined, jobLimit?: number): Promise<ToolResult> {
    // A command that could not start at all rejects with SHELLRING_SPAWN_FAILED; the model reads its message.
    const watch = context.watchOutput;
    const onStart = watch && ((handle: ProcessHandle) => watch(outputBytes(this.#deps.executor.capture, handle)));
    const result = await this.#deps.executor.run({ ...spec, signal: context.signal, onStart });
    if (result.aborted) throw new ShellringError('SHELLRING_ABORTED', bashToolErrors.aborted);
    if (result.sandbox?.runnerFailed) {
      throw new ShellringError('SHELLRING_SPAWN_FAILED', `${result.error}\n${markers.runnerFailed(result.sandbox.mode)}`);
    }
    // No job can hold what the command left running here: it ends on its own or with the session (an escalated
    // command's ended with it).
    const { leftover, leftoverEnded, ended, ...rest } = result;
    const left = leftover ? { leftover: { count: leftover, ...(leftoverEnded ? { ended: true } : {}) } } : {};
    const facts: ForegroundFacts = { ...rest, ...left, ...this.#endedFacts(ended) };
    if (jobLimit !== undefined && result.timedOut) facts.notMoved = jobLimit;
    this.#addBlocked(facts, context, mark);
    return foregroundResult(facts, told);
  }

  /** How this call's result is told: whether a denial's retry is offered, what the session can read (for a read
   * refusal), a timeoutMs above the cap, and whether its face delivers completion notices. */
  #told(args: BashArgs, context: CallContext, mode: SandboxMode | undefined): Telling {
    const { maxTimeoutMs } = this.#deps.executor.commandLimits;
    const sandbox = this.#deps.sandbox;
    return {
      escalationAdvertised: this.#hint(mode, context),
      ...(sandbox && mode ? { readable: readableSummary(mode, context.root?.path ?? this.#base(context), sandbox.readView) } : {}),
      ...(args.timeoutMs !== undefined && args.timeoutMs > maxTimeoutMs ? { cappedFrom: { asked: args.timeoutMs, cap: maxTimeoutMs } } : {}),
      notices: context.notices !== false,
    };
  }

  /** Processes a confined command left, which its sandbox ended with it, as the result tells them. */
  #endedFacts(ended: number | undefined): Pick<ForegroundFacts, 'ended'> {
    return ended ? { ended: { count: ended, background: this.#background } } : {};
  }
}

/** See `BashTool.#told`. */
interface Telling extends SandboxTelling {
  cappedFrom?: { asked: number; cap: number };
  notices: boolean;
}

function foregroundResult(facts: ForegroundFacts, told: Telling): ToolResult {
  const rendered = { ...facts, ...(told.readable !== undefined ? { readable: told.readable } : {}), ...(told.cappedFrom ? { cappedFrom: told.cappedFrom } : {}) };
  return textResult(renderForeground(rendered, told.escalationAdvertised), {
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
    ...(facts.networkBlocked ? { networkBlocked: facts.networkBlocked } : {}),
    ...(facts.ended ? { ended: facts.ended.count } : {}),
  } satisfies BashForegroundResult);
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
