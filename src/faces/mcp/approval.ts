// Asks the MCP client's user through form elicitation: to approve a sandbox escalation, a command the command
// policy asks about, or a connection to a host the network policy does not list (once, always for this session
// where that is offered, or not).
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { approvalChoices, approvalPrompt, commandApprovalPrompt, networkApprovalPrompt, networkChoices } from '../../contract/index.js';
import type { ApprovalOutcome, ApprovalRequest } from '../runtime-options.js';

const ALLOW = 'allow-once';
const ALWAYS = 'allow-always';
const REJECT = 'reject';

/** The prompt and the decisions offered for one request (an elicitation on 2025-11-25, an input request on 2026-07-28). */
export function approvalForm(request: ApprovalRequest): { message: string; choices: string[]; description: string } {
  if (request.kind === 'escalation') {
    return {
      message: approvalPrompt(request),
      choices: [ALLOW, REJECT],
      description: approvalChoices.escalation,
    };
  }
  if (request.kind === 'network') {
    return {
      message: networkApprovalPrompt(request),
      choices: [ALLOW, ALWAYS, REJECT],
      description: networkChoices(request.host, request.port),
    };
  }
  const always = request.alwaysPrefix !== undefined;
  return {
    message: commandApprovalPrompt({ ...request, ruleLabel: request.rule?.label, always }),
    choices: always ? [ALLOW, ALWAYS, REJECT] : [ALLOW, REJECT],
    description: always ? approvalChoices.commandAlways(request.alwaysPrefix!) : approvalChoices.command,
  };
}

/** What a person's answer to the form means; anything but an offered allow is a rejection. */
export function decisionOf(result: { action?: unknown; content?: { decision?: unknown } }, choices: string[]): ApprovalOutcome {
  if (result.action === 'cancel') return 'cancelled';
  if (result.action === 'accept' && result.content?.decision === ALLOW) return 'allowed-once';
  if (result.action === 'accept' && result.content?.decision === ALWAYS && choices.includes(ALWAYS)) return 'allowed-always';
  return 'rejected';
}

/** The form a person fills: one decision among the offered choices. */
export function decisionSchema(choices: string[], description: string) {
  return {
    type: 'object' as const,
    properties: {
      decision: { type: 'string' as const, title: approvalChoices.title, description, enum: choices },
    },
    required: ['decision'],
  };
}

/**
 * Resolves `unavailable` when the client declared no form elicitation, so the runtime reports that no approval
 * channel exists instead of waiting on a prompt nobody can answer.
 */
export async function elicitApproval(
  server: Server,
  request: ApprovalRequest,
  relatedRequestId: RequestId | undefined,
): Promise<ApprovalOutcome> {
  if (!server.getClientCapabilities()?.elicitation?.form) return 'unavailable';
  if (request.signal?.aborted) return 'cancelled';
  const { message, choices, description } = approvalForm(request);
  try {
    const result = await server.elicitInput(
      {
        mode: 'form',
        message,
        requestedSchema: decisionSchema(choices, description),
      },
      // On streamable HTTP the prompt must travel on the tools/call stream it belongs to.
      { relatedRequestId, signal: request.signal, timeout: 24 * 60 * 60 * 1000 },
    );
    return decisionOf(result, choices);
  } catch {
    // An aborted call was cancelled by its caller; any other failure means the channel did not work.
    return request.signal?.aborted ? 'cancelled' : 'unavailable';
  }
}
