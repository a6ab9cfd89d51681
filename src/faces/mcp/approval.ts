// Asks the MCP client's user to approve a sandbox escalation through form elicitation.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { approvalPrompt } from '../../contract/index.js';
import type { ApprovalOutcome, ApprovalRequest } from '../runtime-options.js';

const ALLOW = 'allow-once';
const REJECT = 'reject';

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
  try {
    const result = await server.elicitInput(
      {
        mode: 'form',
        message: approvalPrompt(request),
        requestedSchema: {
          type: 'object',
          properties: {
            decision: {
              type: 'string',
              title: 'Decision',
              description: 'allow-once runs this one command with the wider sandbox; reject refuses it.',
              enum: [ALLOW, REJECT],
            },
          },
          required: ['decision'],
        },
      },
      // On streamable HTTP the prompt must travel on the tools/call stream it belongs to.
      { relatedRequestId, signal: request.signal, timeout: 24 * 60 * 60 * 1000 },
    );
    if (result.action === 'cancel') return 'cancelled';
    if (result.action === 'accept' && result.content?.decision === ALLOW) return 'allowed-once';
    return 'rejected';
  } catch {
    // An aborted call was cancelled by its caller; any other failure means the channel did not work.
    return request.signal?.aborted ? 'cancelled' : 'unavailable';
  }
}
