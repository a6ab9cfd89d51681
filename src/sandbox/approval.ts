// The approval service: a person's one-shot consent to run one call in a wider sandbox mode.
import type { SandboxMode } from './modes.js';

export type ApprovalOutcome = 'allowed-once' | 'rejected' | 'cancelled' | 'unavailable';

export interface ApprovalRequest {
  sessionId: string;
  toolName: string;
  callId?: string;
  /** The command exactly as it would run. */
  command: string;
  /** The resolved working directory it would run in. */
  cwd: string;
  /** The sandbox mode asked for, for this one call. */
  mode: SandboxMode;
  /** The mode the call would otherwise run in. */
  currentMode: SandboxMode;
  /** The model's one-sentence reason, trimmed. */
  justification: string;
  /** `escalate sandbox to <mode>: <justification>`. */
  reason: string;
  signal?: AbortSignal;
}

/** Asks a person; resolves with their decision, or `unavailable` when nobody can answer. */
export type ApprovalHandler = (request: ApprovalRequest) => Promise<ApprovalOutcome>;

export interface ApprovalConfig {
  /** `ask` (default) routes requests to `request`; `never` rejects without asking. */
  policy?: 'ask' | 'never';
  /** Every session's channel, unless a session has its own (`session.setApprovalChannel`). */
  request?: ApprovalHandler;
  /**
   * Whether `request` can reach a person for this session now. Escalation is listed, and hinted at after a denial,
   * only where it can; without this function, wherever `request` exists.
   */
  available?: (sessionId: string) => boolean;
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
