// The approval service: one channel, three kinds of request: a person's consent to run one call in a wider sandbox
// mode (`escalation`), to run a command the command policy asks about (`command`), or to let a session's commands
// reach a host its domain network policy does not list (`network`).
import type { RuleRef } from '../policy/rules.js';
import type { SandboxMode } from './modes.js';

/** `allowed-always` answers a command request (that sub-command's prefix) or a network request (that host and port)
 * for the rest of the session. */
export type ApprovalOutcome = 'allowed-once' | 'allowed-always' | 'rejected' | 'cancelled' | 'unavailable';

interface RequestBase {
  sessionId: string;
  /** One line for a person: `escalate sandbox to <mode>: <justification>`, `run <sub-command>: <message>` or
   * `connect to <host>:<port>`. */
  reason: string;
  signal?: AbortSignal;
}

/** What a request made during one tool call also says: the call and the command. */
interface CallRequestBase extends RequestBase {
  toolName: string;
  callId?: string;
  /** The command exactly as it would run. */
  command: string;
  /** The resolved working directory it would run in. */
  cwd: string;
}

export type ApprovalRequest = EscalationApprovalRequest | CommandApprovalRequest | NetworkApprovalRequest;

/** The requests one tool call makes before its command runs. */
export type CallApprovalRequest = EscalationApprovalRequest | CommandApprovalRequest;

/** The command policy asks before `subcommand` runs. */
export interface CommandApprovalRequest extends CallRequestBase {
  kind: 'command';
  /** The sub-command that asked, as the verdict names it (`npm publish`). */
  subcommand: string;
  /** The rule that asked; null when no rule did (the policy's default, or a command the checker cannot resolve). */
  rule: RuleRef | null;
  /** The rule's message, or the reason the policy asks. */
  message: string;
  /**
   * The argv prefix `allowed-always` would allow for the rest of the session; absent when only a one-time
   * approval is possible (a broad prefix such as a shell or an interpreter, or a command the checker cannot resolve).
   */
  alwaysPrefix?: string[];
}

export interface EscalationApprovalRequest extends CallRequestBase {
  kind: 'escalation';
  /** The sandbox mode asked for, for this one call. */
  mode: SandboxMode;
  /** The mode the call would otherwise run in. */
  currentMode: SandboxMode;
  /** The model's one-sentence reason, trimmed. */
  justification: string;
}

/**
 * A command of the session (any of its calls or jobs) connects to a host that its domain network policy neither
 * allows nor denies, and the policy asks. `allowed-once` lets through the connections waiting on this request;
 * `allowed-always` that host and port for the rest of the session. Concurrent connections to one host and port share
 * one request. Its signal aborts after 10 minutes, or when the session closes.
 */
export interface NetworkApprovalRequest extends RequestBase {
  kind: 'network';
  host: string;
  port: number;
}

/** Asks a person; resolves with their decision, or `unavailable` when nobody can answer. */
export type ApprovalHandler = (request: ApprovalRequest) => Promise<ApprovalOutcome>;

export interface ApprovalConfig {
  /** `ask` (default) routes requests to `request`; `never` rejects every request without asking. */
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

/**
 * Asks once; a request that fails or answers something else counts as no channel being available. An
 * `allowed-always` where the request did not offer it (an escalation, a command without `alwaysPrefix`) still
 * says yes, to this one call.
 */
export async function askApproval(config: ApprovalConfig, request: ApprovalRequest): Promise<ApprovalOutcome> {
  if (config.policy === 'never') return 'rejected';
  try {
    const outcome = await config.request!(request);
    if (outcome === 'allowed-always') return offersAlways(request) ? outcome : 'allowed-once';
    return OUTCOMES.includes(outcome) ? outcome : 'unavailable';
  } catch {
    return 'unavailable';
  }
}

/** Whether `allowed-always` means more than once for this request: a network request, or a command one with a prefix. */
export function offersAlways(request: ApprovalRequest): boolean {
  return request.kind === 'network' || (request.kind === 'command' && request.alwaysPrefix !== undefined);
}
