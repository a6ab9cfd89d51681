// Where a 2026-07-28 client's state lives without protocol sessions: one default state per principal, and any number
// of states behind server-minted handles; each is a runtime session, bound to the principal that opened it.
import { createHash, randomBytes } from 'node:crypto';
import type { Runtime } from '../../../runtime/runtime.js';
import type { Session } from '../../../runtime/session.js';
import { modernErrors } from '../../../contract/index.js';
import { ShellringError } from '../../../errors.js';
import type { SessionRoutes } from '../routes.js';
import type { ApprovalOutcome, ApprovalRequest } from '../../runtime-options.js';
import { approvalDigest, type ApprovalRound } from './approval-round.js';

export interface ModernState {
  /** `default:<principal>` or the handle. */
  readonly key: string;
  readonly principal: string;
  readonly session: Session;
  /** Whether the client of the latest call declared form elicitation (an approval can be asked in-band). */
  elicits: boolean;
  lastUsedAt: number;
  inFlight: number;
  /** Approval rounds of the calls running now, by runtime call id. */
  readonly rounds: Map<string, ApprovalRound>;
}

export interface ModernStatesOptions {
  runtime: Runtime;
  routes: SessionRoutes;
  /** Names this server in handles and task ids, so a load balancer can route them home. */
  instanceId: string;
  cwd: string;
  /** The state of principal `stdio` on the stdio face: the process's one session, shared with a 2025 opening. */
  stdioSession?: Session;
  /** Called for each runtime session opened here; returns what undoes it (the HTTP face counts calls). */
  onSession?: (session: Session) => () => void;
  /** Judges a new state before it is made (the HTTP face's session limit): a refusal's text, or undefined. */
  admit?: () => string | undefined;
  clock?: () => number;
}

const HANDLE = /^([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{22})$/;

export class ModernStates {
  readonly #options: ModernStatesOptions;
  readonly #states = new Map<string, ModernState>();
  readonly #undo = new Map<string, () => void>();

  constructor(options: ModernStatesOptions) {
    this.#options = options;
  }

  get instanceId(): string {
    return this.#options.instanceId;
  }

  /** The working directory of the states opened here. */
  get cwd(): string {
    return this.#options.cwd;
  }

  get size(): number {
    return this.#states.size;
  }

  #now(): number {
    return (this.#options.clock ?? Date.now)();
  }

  /** The state a call names by handle, or the principal's default state when it names none. */
  resolve(principal: string, handle: unknown): ModernState {
    if (handle === undefined || handle === null) return this.#default(principal);
    if (typeof handle !== 'string' || !HANDLE.test(handle)) throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', modernErrors.session(handle));
    const state = this.#states.get(handle);
    // Possession is not authorization: another principal's handle is as unknown as an expired one.
    if (!state || state.principal !== principal) throw new ShellringError('SHELLRING_INVALID_SESSION', modernErrors.unknownSession(handle));
    state.lastUsedAt = this.#now();
    return state;
  }

  /** Mints a handle: this instance's id, then 128 random bits.
   * @throws ShellringError `SHELLRING_REFUSED` when `admit` refuses a new state. */
  open(principal: string): ModernState {
    const handle = `${this.#options.instanceId}.${randomBytes(16).toString('base64url')}`;
    return this.#add(handle, principal, `mcp-${this.#options.instanceId}-${randomBytes(6).toString('base64url')}`);
  }

  #default(principal: string): ModernState {
    const key = `default:${principal}`;
    const found = this.#states.get(key);
    if (found) {
      found.lastUsedAt = this.#now();
      return found;
    }
    // A fresh id each time: a state that expired may still be closing, and its jobs must not show in the new one.
    const tag = createHash('sha256').update(principal).digest('base64url').slice(0, 12);
    const id = `mcp-${this.#options.instanceId}-${tag}-${randomBytes(4).toString('base64url')}`;
    return this.#add(key, principal, id, principal === 'stdio' ? this.#options.stdioSession : undefined);
  }

  #add(key: string, principal: string, sessionId: string, existing?: Session): ModernState {
    const refusal = existing ? undefined : this.#options.admit?.();
    if (refusal !== undefined) throw new ShellringError('SHELLRING_REFUSED', refusal);
    const session = existing ?? this.#options.runtime.session({ id: sessionId, cwd: this.#options.cwd });
    // 2026-07-28 has no unsolicited server messages: the session's texts say how to wait for a job instead.
    session.setNotices(false);
    const state: ModernState = { key, principal, session, elicits: false, lastUsedAt: this.#now(), inFlight: 0, rounds: new Map() };
    this.#states.set(key, state);
    // The stdio session already has its 2025 endpoint; a 2026 call there registers its own for the same session id.
    const detach = this.#options.routes.add(session.id, {
      // 2026-07-28 has no unsolicited server messages: a finished job is seen by polling its task or job_output.
      notify: () => {},
      approve: (request) => this.#approve(state, request),
      canApprove: () => state.elicits,
    });
    const untrack = existing ? undefined : this.#options.onSession?.(session);
    this.#undo.set(key, () => {
      detach();
      untrack?.();
    });
    return state;
  }

  /**
   * An approval asked during a 2026 call: answered from the round's verified answers, else recorded as the round's
   * question and refused for now (the call returns `input_required` instead of its result). A client that cannot
   * answer in-band leaves it to the fallback (a console).
   */
  async #approve(state: ModernState, request: ApprovalRequest): Promise<ApprovalOutcome> {
    // A connection asks while its command runs, when no call can return `input_required` for it any more.
    if (request.kind === 'network') return 'unavailable';
    const round = request.callId === undefined ? undefined : state.rounds.get(request.callId);
    if (!round || !state.elicits) return 'unavailable';
    const digest = approvalDigest(request);
    const answer = round.answers[digest];
    if (answer !== undefined) return answer;
    round.pending ??= { request, digest };
    return 'cancelled';
  }

  /** A call in `state` ended: idle time counts from here. */
  touch(state: ModernState): void {
    state.lastUsedAt = this.#now();
  }

  /** Closes the states idle longer than `idleMs` with no call in flight (the stdio state is the process's). */
  expireIdle(idleMs: number): number {
    const now = this.#now();
    let expired = 0;
    for (const state of [...this.#states.values()]) {
      if (state.inFlight === 0 && now - state.lastUsedAt >= idleMs && state.session !== this.#options.stdioSession) {
        void this.#close(state);
        expired += 1;
      }
    }
    return expired;
  }

  async #close(state: ModernState): Promise<void> {
    this.#states.delete(state.key);
    this.#undo.get(state.key)?.();
    this.#undo.delete(state.key);
    if (state.session !== this.#options.stdioSession) await state.session.close();
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.#states.values()].map((state) => this.#close(state)));
  }
}
