// Routes runtime-wide callbacks (completion notices, approval requests) to the MCP session that owns them.
import type { Notice, Runtime } from '../../runtime/runtime.js';
import type { ApprovalOutcome, ApprovalRequest } from '../runtime-options.js';

export interface SessionEndpoint {
  notify(notice: Notice): void;
  approve(request: ApprovalRequest): Promise<ApprovalOutcome>;
}

export class SessionRoutes {
  readonly #endpoints = new Map<string, SessionEndpoint>();

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
    return endpoint ? endpoint.approve(request) : 'unavailable';
  };
}
