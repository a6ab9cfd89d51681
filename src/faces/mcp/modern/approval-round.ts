// One 2026-07-28 call's approvals as multi round-trip: the answers it brings (verified from requestState and this
// round's inputResponses), the question it leaves, and the input_required result that asks it.
import { createHash } from 'node:crypto';
import { inputRequired } from '@modelcontextprotocol/server';
import type { ApprovalOutcome, CallApprovalRequest } from '../../runtime-options.js';
import { approvalForm, decisionOf, decisionSchema } from '../approval.js';
import type { ApprovalState, StateCodec } from './request-state.js';

export interface ApprovalRound {
  /** The runtime call id, the same in every round of one call: observers (a console) see one call. */
  callId: string;
  /** Approval digest -> outcome, for every question answered in earlier rounds. */
  answers: Record<string, ApprovalOutcome>;
  /** The first question this round met without an answer. */
  pending?: { request: CallApprovalRequest; digest: string };
}

/** What identifies a question across rounds: the same call asks it again with exactly these facts. */
export function approvalDigest(request: CallApprovalRequest): string {
  const facts =
    request.kind === 'escalation'
      ? [request.kind, request.toolName, request.command, request.cwd, request.mode, request.justification]
      : [request.kind, request.toolName, request.command, request.cwd, request.subcommand, request.rule?.label ?? null, request.alwaysPrefix ?? null];
  return createHash('sha256').update(JSON.stringify(facts)).digest('base64url');
}

/** sha256 of the arguments as canonical JSON (keys sorted at every level). */
export function argumentsDigest(args: unknown): string {
  return createHash('sha256').update(canonical(args)).digest('base64url');
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The answers a verified state carries, plus this round's answer to the question it asked (when given). */
export function answersOf(state: ApprovalState, responses: Record<string, unknown> | undefined): Record<string, ApprovalOutcome> {
  const answers = { ...(state.answers as Record<string, ApprovalOutcome>) };
  const response = responses?.[state.pending.key];
  if (response && typeof response === 'object') answers[state.pending.digest] = decisionOf(response, state.pending.choices);
  return answers;
}

/** The input_required result for the round's open question; its state seals everything the retry must match. */
export function askResult(
  codec: StateCodec,
  round: ApprovalRound & { pending: NonNullable<ApprovalRound['pending']> },
  bound: { principal: string; state: string; tool: string; args: string },
) {
  const { request, digest } = round.pending;
  const { message, choices, description } = approvalForm(request);
  // Unique over the call's rounds: one more than the answers it already has.
  const key = `approval-${Object.keys(round.answers).length + 1}`;
  const requestState = codec.seal({
    ...bound,
    callId: round.callId,
    answers: round.answers,
    pending: { key, digest, choices, ...(request.kind === 'escalation' ? { mode: request.mode } : {}) },
  });
  return inputRequired({
    inputRequests: { [key]: inputRequired.elicit({ mode: 'form', message, requestedSchema: decisionSchema(choices, description) }) },
    requestState,
  });
}
