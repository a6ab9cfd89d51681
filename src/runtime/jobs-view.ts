// The jobs API for observers and people: list, follow by offset, events, and a person's kill.
import type { JobRegistry } from '../jobs/registry.js';
import type { FollowRead, JobEvent, JobInfo } from '../jobs/types.js';
import { DEFAULT_STOP_REASON } from '../contract/index.js';

export class JobsView {
  readonly #registry: JobRegistry;

  constructor(registry: JobRegistry) {
    this.#registry = registry;
  }

  list(sessionId?: string): JobInfo[] {
    return this.#registry.list(sessionId);
  }

  /** Reads the job's output from an absolute offset without moving the model's cursor. */
  follow(jobId: string, from = 0, max?: number): FollowRead {
    return this.#registry.follow(jobId, from, max);
  }

  on<T extends JobEvent['type']>(type: T, listener: (event: Extract<JobEvent, { type: T }>) => void): () => void {
    return this.#registry.on(type, listener);
  }

  /** A person stops a job; a foreground call waiting on it reports `[stopped: <reason>]`. */
  kill(jobId: string, reason: string = DEFAULT_STOP_REASON): boolean {
    return this.#registry.kill(jobId, reason, 'person');
  }
}
