// The requestState of an approval round trip: an HMAC-sealed payload bound to a principal, a call and an expiry, used once.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a sealed state vouches for; everything a retry must match before its answers count. */
export interface ApprovalState {
  /** Who was asked: the retry must come from the same principal. */
  principal: string;
  /** The state key (default state or handle) the call ran in. */
  state: string;
  tool: string;
  /** sha256 of the exact call arguments (canonical JSON). */
  args: string;
  /** The runtime call id of the call's first round, which the retry continues. */
  callId?: string;
  /** Answers of earlier rounds: approval digest -> outcome. */
  answers: Record<string, string>;
  /** The question this round asked: its input request key, approval digest, offered choices and requested mode. */
  pending: { key: string; digest: string; choices: string[]; mode?: string };
  /** Expiry, ms since the epoch. */
  exp: number;
  /** Makes each state distinct, so a used one can be recognised. */
  nonce: string;
}

export const STATE_TTL_MS = 10 * 60 * 1000;

/**
 * Seals and opens approval states: `<instance>.<payload>.<mac>`. The key is a random secret of this process: a state
 * is only ever useful on the instance that holds the call's state, and a load balancer routes the retry there by the
 * instance named in front (deploy/haproxy.cfg reads it from the body).
 */
export class StateCodec {
  readonly #key: Buffer;
  readonly #instance: string;
  readonly #clock: () => number;
  /** Nonces already redeemed, until their state expires: a replay of a used state is refused. */
  readonly #used = new Map<string, number>();

  constructor(instance: string, key: Buffer = randomBytes(32), clock: () => number = Date.now) {
    this.#instance = instance;
    this.#key = key;
    this.#clock = clock;
  }

  seal(payload: Omit<ApprovalState, 'exp' | 'nonce'>): string {
    const full: ApprovalState = { ...payload, exp: this.#clock() + STATE_TTL_MS, nonce: randomBytes(16).toString('base64url') };
    const body = Buffer.from(JSON.stringify(full)).toString('base64url');
    return `${this.#instance}.${body}.${this.#mac(body)}`;
  }

  /** The payload of an authentic, unexpired state; undefined for anything else. Does not redeem it. */
  open(state: string): ApprovalState | undefined {
    const [instance, body, macText, ...rest] = state.split('.');
    if (instance !== this.#instance || !body || macText === undefined || rest.length > 0) return undefined;
    const mac = Buffer.from(macText);
    const expected = Buffer.from(this.#mac(body));
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) return undefined;
    let payload: ApprovalState;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as ApprovalState;
    } catch {
      return undefined;
    }
    if (typeof payload.exp !== 'number' || payload.exp <= this.#clock()) return undefined;
    return payload;
  }

  /** Marks a state used; false when it already was. */
  redeem(payload: ApprovalState): boolean {
    const now = this.#clock();
    for (const [nonce, exp] of this.#used) if (exp <= now) this.#used.delete(nonce);
    if (this.#used.has(payload.nonce)) return false;
    this.#used.set(payload.nonce, payload.exp);
    return true;
  }

  #mac(body: string): string {
    return createHmac('sha256', this.#key).update(body).digest('base64url');
  }
}
