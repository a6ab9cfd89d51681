// The 2026-07-28 face: builds the SDK server that answers one request (HTTP) or one connection (stdio): the tool
// list, tool calls in the caller's state (approvals as input_required, jobs as tasks), and the tasks methods.
import { randomUUID } from 'node:crypto';
import { CLIENT_CAPABILITIES_META_KEY, ProtocolError, ProtocolErrorCode, Server, type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Runtime } from '../../../runtime/runtime.js';
import { errorResult, type ToolResult } from '../../../tools/tool.js';
import { modernErrors } from '../../../contract/index.js';
import { ShellringError } from '../../../errors.js';
import { packageVersion } from '../../version.js';
import { instructionsOf } from '../server.js';
import { answersOf, argumentsDigest, askResult, type ApprovalRound } from './approval-round.js';
import { MODERN_FACE, modernTools } from './listing.js';
import type { StateCodec } from './request-state.js';
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
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY];
  return capabilities && typeof capabilities === 'object' ? (capabilities as Capabilities) : {};
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
        // The runtime's sections: with no session, the standing sandbox mode is the configured one.
        instructions: instructionsOf(runtime),
      },
    );
    server.setRequestHandler('tools/list', (_request, ctx) => {
      const state = states.resolve(principalOf(ctx), undefined);
      state.elicits = elicits(capabilitiesOf(ctx));
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
    if (own) return own.tool.call(args, { sessionId: '', openState: () => this.states.open(principal).key });
    let state: ModernState;
    try {
      state = this.states.resolve(principal, handle);
    } catch (error) {
      return errorResult(error);
    }
    state.elicits = elicits(capabilities);
    const refusal = this.#options.admit?.(state.session.id, params.name);
    if (refusal !== undefined) return errorResult(new ShellringError('SHELLRING_REFUSED', refusal));
    const bound = { principal, state: state.key, tool: params.name, args: argumentsDigest(args) };
    const round: ApprovalRound = { answers: this.#answers(ctx, bound) };
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
   * The answers a retry brings: none on a first call; else its requestState must be authentic, unexpired, unused,
   * and bound to this principal, state, tool and exact arguments, or the request is refused.
   */
  #answers(ctx: ServerContext, bound: { principal: string; state: string; tool: string; args: string }) {
    const raw = ctx.mcpReq.requestState<unknown>();
    if (raw === undefined) return {};
    const payload = typeof raw === 'string' ? this.#options.codec.open(raw) : undefined;
    const matches =
      payload !== undefined &&
      payload.principal === bound.principal &&
      payload.state === bound.state &&
      payload.tool === bound.tool &&
      payload.args === bound.args;
    if (!matches || !this.#options.codec.redeem(payload)) throw invalidState();
    return answersOf(payload, ctx.mcpReq.inputResponses);
  }

  async #run(
    state: ModernState,
    name: string,
    args: Record<string, unknown>,
    round: ApprovalRound,
    signal: AbortSignal,
    watchOutput?: (bytesSoFar: () => number) => void,
  ): Promise<ToolResult> {
    const callId = randomUUID();
    state.rounds.set(callId, round);
    state.inFlight += 1;
    try {
      return await state.session.callTool(name, args, { signal, callId, watchOutput });
    } finally {
      state.rounds.delete(callId);
      state.inFlight -= 1;
      this.states.touch(state);
    }
  }

  /** A job a call started or handed off becomes a task where the client declared the tasks extension. */
  #maybeTask(state: ModernState, result: ToolResult, capabilities: Capabilities) {
    const facts = result.structuredContent as { kind?: string; jobId?: string; output?: string } | undefined;
    const declared = capabilities.extensions?.[TASKS_EXTENSION] !== undefined;
    if (!declared || result.isError || !facts?.jobId || (facts.kind !== 'background' && facts.kind !== 'promoted')) return result;
    return this.tasks.create(state, facts.jobId, facts.kind === 'promoted' ? (facts.output ?? '') : '');
  }
}
