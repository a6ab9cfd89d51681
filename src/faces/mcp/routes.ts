// Routes runtime-wide callbacks (completion notices, approval requests) to the MCP session that owns them.
import type { Notice, Runtime } from '../../runtime/runtime.js';
import type { ApprovalOutcome, ApprovalRequest } from '../runtime-options.js';

export interface SessionEndpoint {
  notify(notice: Notice): void;
  approve(request: ApprovalRequest): Promise<ApprovalOutcome>;
  /** Whether `approve` can reach a person now (the client declared elicitation). */
  canApprove?(): boolean;
}

export interface SessionRoutesOptions {
  /**
   * Asked when a session's own client cannot answer (no elicitation, or no client connected): a web console.
   * Without it such a request is `unavailable`.
   */
  fallback?: (request: ApprovalRequest) => Promise<ApprovalOutcome>;
}

export class SessionRoutes {
  readonly #endpoints = new Map<string, SessionEndpoint>();
  readonly #fallback: SessionRoutesOptions['fallback'];

  constructor(options: SessionRoutesOptions = {}) {
    this.#fallback = options.fallback;
  }

  /** One listener for the whole runtime: a listener per session would grow with every HTTP session. */
  listen(runtime: Runtime): () => void {
    return runtime.on('notice', (notice) => this.#endpoints.get(notice.sessionId)?.notify(notice));
  }

  add(sessionId: string, endpoint: SessionEndpoint): () => void {
    this.#endpoints.set(sessionId, endpoint);
    return () => {
      if (this.#endpoints.get(sessionId) === endpoint) this.#endpoints.delete(sessionId);
    };
  }

  /** The runtime's `approval.request`: a session with no connected client has no one to ask. */
  readonly approve = async (request: ApprovalRequest): Promise<ApprovalOutcome> => {
    const endpoint = this.#endpoints.get(request.sessionId);
    const outcome = endpoint ? await endpoint.approve(request) : 'unavailable';
    return outcome === 'unavailable' && this.#fallback ? this.#fallback(request) : outcome;
  };

  /** Whether an escalation of this session can reach a person: its client's elicitation, or the fallback. */
  readonly available = (sessionId: string): boolean =>
    this.#fallback !== undefined || this.#endpoints.get(sessionId)?.canApprove?.() === true;
}
