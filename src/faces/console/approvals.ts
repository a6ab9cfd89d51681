// The console as an approval channel: escalation, command and network requests wait here until a person decides.
import { EventEmitter } from 'node:events';
import type { ApprovalOutcome, ApprovalRequest } from '../../sandbox/approval.js';

export interface PendingApproval {
  id: string;
  sessionId: string;
  callId?: string;
  /** Absent for a network request: a connection belongs to no one call. */
  toolName?: string;
  kind: ApprovalRequest['kind'];
  /** `escalate sandbox to <mode>: <justification>`, `run <sub-command>: <message>` or `connect to <host>:<port>`. */
  reason: string;
  requestedAt: number;
  /** Command requests: what asked, the rule (its label) that asked, its message, and what always would allow. */
  command?: string;
  cwd?: string;
  subcommand?: string;
  rule?: string;
  message?: string;
  alwaysPrefix?: string[];
  /** Network requests: the host and port a command connects to (allow-always allows them for the session). */
  host?: string;
  port?: number;
}

export type ApprovalDecision = 'allow-once' | 'allow-always' | 'reject';

interface Waiting extends PendingApproval {
  settle: (outcome: ApprovalOutcome) => void;
}

export class ConsoleApprovals {
  readonly #pending = new Map<string, Waiting>();
  readonly #events = new EventEmitter();
  #next = 1;

  /**
   * The runtime's `approval.request` (or a fallback behind another channel): resolves once a person decides in
   * the console, or `cancelled` when the call is aborted first. Nobody watching means the call waits, as it
   * would on any other person's prompt; its caller's cancellation ends the wait.
   */
  readonly request = (request: ApprovalRequest): Promise<ApprovalOutcome> => {
    if (request.signal?.aborted) return Promise.resolve('cancelled');
    return new Promise<ApprovalOutcome>((resolve) => {
      const id = `approval-${this.#next++}`;
      const onAbort = () => finish('cancelled');
      const finish = (outcome: ApprovalOutcome) => {
        if (!this.#pending.delete(id)) return;
        request.signal?.removeEventListener('abort', onAbort);
        this.#events.emit('change');
        resolve(outcome);
      };
      this.#pending.set(id, {
        id,
        sessionId: request.sessionId,
        ...(request.kind !== 'network' ? { toolName: request.toolName, ...(request.callId !== undefined ? { callId: request.callId } : {}) } : {}),
        ...(request.kind === 'network' ? { host: request.host, port: request.port } : {}),
        kind: request.kind,
        reason: request.reason,
        requestedAt: Date.now(),
        ...(request.kind === 'command'
          ? {
              command: request.command,
              cwd: request.cwd,
              subcommand: request.subcommand,
              ...(request.rule ? { rule: request.rule.label } : {}),
              message: request.message,
              ...(request.alwaysPrefix ? { alwaysPrefix: request.alwaysPrefix } : {}),
            }
          : {}),
        settle: finish,
      });
      request.signal?.addEventListener('abort', onAbort, { once: true });
      this.#events.emit('change');
    });
  };

  /** The console is a channel for every session while it is mounted. */
  readonly available = (_sessionId: string): boolean => true;

  pending(): PendingApproval[] {
    return [...this.#pending.values()].map(({ settle: _settle, ...entry }) => entry);
  }

  /**
   * A person's decision; false when the request is no longer pending (decided, or its call ended) or does not
   * offer that decision (allow-always on an escalation, or a command where no prefix can be allowed for the session).
   */
  decide(id: string, decision: ApprovalDecision): boolean {
    const entry = this.#pending.get(id);
    if (!entry) return false;
    if (decision === 'allow-always' && !entry.alwaysPrefix && entry.kind !== 'network') return false;
    entry.settle(decision === 'allow-once' ? 'allowed-once' : decision === 'allow-always' ? 'allowed-always' : 'rejected');
    return true;
  }

  onChange(listener: () => void): () => void {
    this.#events.on('change', listener);
    return () => this.#events.off('change', listener);
  }
}
