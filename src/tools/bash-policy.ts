// The bash tool's policy stage, before any sandbox preparation: check the command, ask a person about what the
// policy asks about, and turn a denial, a rejection or a missing channel into the one line the model reads.
import {
  commandApprovalReason,
  policyTexts,
} from '../contract/index.js';
import { askApproval, type ApprovalConfig, type ApprovalHandler } from '../sandbox/approval.js';
import { isBroadPrefix } from '../policy/broad.js';
import { check, type PolicyMatch } from '../policy/check.js';
import { isActive } from '../policy/load.js';
import type { CompiledPolicy } from '../policy/rules.js';
import type { SessionPolicy } from '../policy/session-rules.js';

export interface PolicyCall {
  sessionId: string;
  callId?: string;
  command: string;
  /** The resolved directory the command would run in. */
  cwd: string;
  signal?: AbortSignal;
  /** The session's own approval channel, if any. */
  approve?: ApprovalHandler;
  /** The session's own layers, if the call comes through a session. */
  session?: SessionPolicy;
  /** Throws when the call could not start anyway (a background job over the limit): then nobody is asked. */
  admit?: () => void;
}

/** Why the stage refused a call: the one line the model reads. */
export interface PolicyRefusal {
  text: string;
}

/**
 * Resolves undefined when the call may go on (every sub-command allowed, or approved by a person), else the
 * refusal. Without rules in any layer nothing is parsed: no policy costs nothing.
 */
export async function policyStage(
  runtime: CompiledPolicy | undefined,
  approval: ApprovalConfig | undefined,
  call: PolicyCall,
): Promise<PolicyRefusal | undefined> {
  const session = call.session;
  if (!isActive([runtime, session?.layer])) return undefined;
  const policies = session?.layer ? (runtime ? [runtime, session.layer] : [session.layer]) : [runtime!];
  const evaluation = check(call.command, { policies, approved: session?.approved });
  if (evaluation.decision === 'allow') return undefined;
  if (evaluation.decision === 'deny') {
    const decider = evaluation.matches.find((match) => match.decision === 'deny')!;
    return { text: policyTexts.denied(decider.subcommand, decider.message) };
  }
  const request = call.approve ?? approval?.request;
  for (const match of distinctAsks(evaluation.matches)) {
    // Nobody is asked under this policy: the model is told so, not that a person said no.
    if (approval?.policy === 'never') return { text: policyTexts.neverAsked(match.subcommand, match.message) };
    if (!request) return { text: policyTexts.noChannel(match.subcommand, match.message) };
    call.admit?.();
    const always = match.prefix && !isBroadPrefix(match.prefix) && session ? match.prefix : undefined;
    const outcome = await askApproval(
      { policy: approval?.policy, request },
      {
        kind: 'command',
        sessionId: call.sessionId,
        toolName: 'bash',
        ...(call.callId !== undefined ? { callId: call.callId } : {}),
        command: call.command,
        cwd: call.cwd,
        subcommand: match.subcommand,
        rule: match.rule,
        message: match.message,
        reason: commandApprovalReason(match.subcommand, match.message),
        ...(always ? { alwaysPrefix: always } : {}),
        ...(call.signal ? { signal: call.signal } : {}),
      },
    );
    if (outcome === 'allowed-always') session!.allowAlways(always!);
    else if (outcome === 'rejected') return { text: policyTexts.rejected(match.subcommand, match.message) };
    else if (outcome === 'cancelled') return { text: policyTexts.cancelled(match.subcommand, match.message) };
    else if (outcome === 'unavailable') return { text: policyTexts.noChannel(match.subcommand, match.message) };
  }
  return undefined;
}

/** One question per sub-command and reason, in the order the command runs them. */
function distinctAsks(matches: readonly PolicyMatch[]): PolicyMatch[] {
  const seen = new Set<string>();
  return matches.filter((match) => {
    if (match.decision !== 'ask') return false;
    const key = `${match.subcommand}\u0000${match.message}\u0000${match.rule?.label ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
