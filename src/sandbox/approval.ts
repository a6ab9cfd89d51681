// The approval service: a person's one-shot consent to run one call in a wider sandbox mode.

export type ApprovalOutcome = 'allowed-once' | 'rejected' | 'cancelled' | 'unavailable';

export interface ApprovalRequest {
  sessionId: string;
  toolName: string;
  callId?: string;
  /** `escalate sandbox to <mode>: <justification>`. */
  reason: string;
  signal?: AbortSignal;
}

export interface ApprovalConfig {
  /** `ask` (default) routes requests to `request`; `never` rejects without asking. */
  policy?: 'ask' | 'never';
  request?: (request: ApprovalRequest) => Promise<ApprovalOutcome>;
}

const OUTCOMES: readonly string[] = ['allowed-once', 'rejected', 'cancelled', 'unavailable'];

/** Asks once; a request that fails or answers something else counts as no channel being available. */
export async function askApproval(config: ApprovalConfig, request: ApprovalRequest): Promise<ApprovalOutcome> {
  if (config.policy === 'never') return 'rejected';
  try {
    const outcome = await config.request!(request);
    return OUTCOMES.includes(outcome) ? outcome : 'unavailable';
  } catch {
    return 'unavailable';
  }
}
