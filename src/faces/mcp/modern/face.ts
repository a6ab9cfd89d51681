// The 2026-07-28 face: builds the SDK server that answers one request (HTTP) or one connection (stdio): the tool
// list, tool calls in the caller's state (approvals as input_required, jobs as tasks), and the tasks methods.
import { randomUUID } from 'node:crypto';
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, ProtocolError, ProtocolErrorCode, Server, type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Runtime } from '../../../runtime/runtime.js';
import { errorResult, type ToolResult } from '../../../tools/tool.js';
import { modernErrors } from '../../../contract/index.js';
import { ShellringError } from '../../../errors.js';
import { packageVersion } from '../../version.js';
import { joinSections } from '../server.js';
import { answersOf, argumentsDigest, askResult, type ApprovalRound } from './approval-round.js';
import { MODERN_FACE, modernTools } from './listing.js';
import { STATE_TTL_MS, type StateCodec } from './request-state.js';
import { labelFromClient } from '../client-label.js';
import type { ModernState, ModernStates } from './states.js';
import { TASKS_EXTENSION, TaskTable } from './tasks.js';
import { followProgress, type ProgressToken } from '../progress.js';

export interface ModernFaceOptions {
  runtime: Runtime;
  states: ModernStates;
  codec: StateCodec;
  /** Judges a tool call in a state before it runs (the HTTP face's drain gate and command caps). */
  admit?: (sessionId: string, tool: string) => string | undefined;
  /** How often a call that carries a progress token is told about. Default 15000. */
  progressIntervalMs?: number;
}

/** Who sent a request: the HTTP face passes the authenticated principal as authInfo.clientId; stdio has one client. */
export type PrincipalOf = (ctx: ServerContext) => string;

const taskParams = z.looseObject({ taskId: z.string() });

interface Capabilities {
  elicitation?: { form?: unknown } & Record<string, unknown>;
  extensions?: Record<string, unknown>;
}

function capabilitiesOf(ctx: ServerContext): Capabilities {
  const capabilities = envelopeOf(ctx)?.[CLIENT_CAPABILITIES_META_KEY];
  return capabilities && typeof capabilities === 'object' ? (capabilities as Capabilities) : {};
}

function envelopeOf(ctx: ServerContext): Record<string, unknown> | undefined {
  return ctx.mcpReq.envelope as Record<string, unknown> | undefined;
}

/** What each request says of its caller: whether it elicits, and its name for people (the state's label). */
function introduce(state: ModernState, ctx: ServerContext): void {
  state.elicits = elicits(capabilitiesOf(ctx));
  labelFromClient(state.session, envelopeOf(ctx)?.[CLIENT_INFO_META_KEY]);
}

/** A bare `elicitation: {}` means form, as the specification reads it. */
function elicits(capabilities: Capabilities): boolean {
  const elicitation = capabilities.elicitation;
  if (!elicitation || typeof elicitation !== 'object') return false;
  return Object.keys(elicitation).length === 0 || elicitation.form !== undefined;
}

const invalidState = () => new ProtocolError(ProtocolErrorCode.InvalidParams, modernErrors.stateInvalid, { reason: 'invalid_request_state' });

export class ModernFace {
  readonly #options: ModernFaceOptions;
  readonly tasks: TaskTable;

  constructor(options: ModernFaceOptions) {
    this.#options = options;
    this.tasks = new TaskTable(options.runtime, options.states.instanceId);
  }

  get states(): ModernStates {
    return this.#options.states;
  }

  /** A fresh SDK server whose handlers read the principal of each request with `principalOf`. */
  server(principalOf: PrincipalOf): Server {
    const { runtime, states } = this.#options;
    const server = new Server(
      { name: 'shellring', version: packageVersion() },
      {
        capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } },
        // The runtime's sections as this revision keeps them (it sends no completion notice), ending with the
        // standing sandbox mode a state here starts with (the configured one).
        instructions: joinSections(runtime.promptSections({ notices: false, workspace: states.cwd })),
      },
    );
    server.setRequestHandler('tools/list', (_request, ctx) => {
      const state = states.resolve(principalOf(ctx), undefined);
      introduce(state, ctx);
      return { tools: modernTools(runtime, state.session) } as never;
    });
    server.setRequestHandler('tools/call', async (request, ctx) => (await this.#call(request.params, ctx, principalOf(ctx))) as never);
    server.setRequestHandler('tasks/get', { params: taskParams }, async (params, ctx) => (await this.tasks.get(principalOf(ctx), params.taskId)) as never);
    server.setRequestHandler('tasks/cancel', { params: taskParams }, async (params, ctx) => {
      await this.tasks.cancel(principalOf(ctx), params.taskId);
      return {};
    });
    server.setRequestHandler('tasks/update', { params: taskParams }, (params, ctx) => {
      this.tasks.update(principalOf(ctx), params.taskId);
      return {};
    });
    return server;
  }

  async #call(params: { name: string; arguments?: Record<string, unknown> }, ctx: ServerContext, principal: string) {
    const capabilities = capabilitiesOf(ctx);
    const { session: handle, ...args } = params.arguments ?? {};
    // A tool only this face offers acts on the face's states, in no runtime session (no state is resolved for it).
    const own = this.#options.runtime.faceTools(MODERN_FACE).find(({ spec }) => spec.name === params.name);
    if (own) {
      try {
        return await own.tool.call(args, { sessionId: '', openState: () => this.states.open(principal).key });
      } catch (error) {
        // A state refused (the server's session limit) is the call's answer, not a protocol failure.
        return errorResult(error);
      }
    }
    let state: ModernState;
    try {
      state = this.states.resolve(principal, handle);
    } catch (error) {
      return errorResult(error);
    }
    introduce(state, ctx);
    const refusal = this.#options.admit?.(state.session.id, params.name);
    if (refusal !== undefined) return errorResult(new ShellringError('SHELLRING_REFUSED', refusal));
    const bound = { principal, state: state.key, tool: params.name, args: argumentsDigest(args) };
    const round: ApprovalRound = this.#round(ctx, bound);
    const token = (params as { _meta?: { progressToken?: ProgressToken } })._meta?.progressToken;
    const progress =
      token === undefined ? undefined : followProgress({ token, intervalMs: this.#options.progressIntervalMs, send: (notice) => ctx.mcpReq.notify(notice) });
    let result: ToolResult;
    try {
      result = await this.#run(state, params.name, args, round, ctx.mcpReq.signal, progress?.watch);
    } finally {
      progress?.stop();
    }
    if (round.pending) return askResult(this.#options.codec, round as Required<ApprovalRound>, bound);
    return this.#maybeTask(state, result, capabilities);
  }

  /**
   * The round a request starts: a first call gets a new call id and no answers; a retry continues its call with the
   * answers it brings, and its requestState must be authentic, unexpired, unused, and bound to this principal,
   * state, tool and exact arguments, or the request is refused.
   */
  #round(ctx: ServerContext, bound: { principal: string; state: string; tool: string; args: string }): ApprovalRound {
    const raw = ctx.mcpReq.requestState<unknown>();
    if (raw === undefined) return { callId: randomUUID(), answers: {} };
    const payload = typeof raw === 'string' ? this.#options.codec.open(raw) : undefined;
    const matches =
      payload !== undefined &&
      payload.principal === bound.principal &&
      payload.state === bound.state &&
      payload.tool === bound.tool &&
      payload.args === bound.args;
    if (!matches || !this.#options.codec.redeem(payload)) throw invalidState();
    return { callId: payload.callId ?? randomUUID(), answers: answersOf(payload, ctx.mcpReq.inputResponses) };
  }

  async #run(
    state: ModernState,
    name: string,
    args: Record<string, unknown>,
    round: ApprovalRound,
    signal: AbortSignal,
    watchOutput?: (bytesSoFar: () => number) => void,
  ): Promise<ToolResult> {
    const { callId } = round;
    state.rounds.set(callId, round);
    state.inFlight += 1;
    // A call that asks a question returns input_required; the retry that answers it continues the same call.
    const suspended = () => (round.pending ? Date.now() + STATE_TTL_MS : undefined);
    try {
      return await state.session.callTool(name, args, { signal, callId, watchOutput, suspended });
    } finally {
      state.rounds.delete(callId);
      state.inFlight -= 1;
      this.states.touch(state);
    }
  }

  /** A job a call started or handed off becomes a task where the client declared the tasks extension. */
  #maybeTask(state: ModernState, result: ToolResult, capabilities: Capabilities) {
    const facts = result.structuredContent as { kind?: string; jobId?: string; output?: string; timeoutMs?: number } | undefined;
    const declared = capabilities.extensions?.[TASKS_EXTENSION] !== undefined;
    if (!declared || result.isError || !facts?.jobId || (facts.kind !== 'background' && facts.kind !== 'promoted')) return result;
    if (facts.kind === 'background') return this.tasks.create(state, facts.jobId, { kind: facts.kind });
    return this.tasks.create(state, facts.jobId, { kind: facts.kind, timeoutMs: facts.timeoutMs }, facts.output ?? '');
  }
}
