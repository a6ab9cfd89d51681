// The console's signed-in browsers: each sign-in gets a random cookie value and a random CSRF value of its own, so
// neither can be computed from the bearer token; they live in this process and die with it.
import { createHash, randomBytes } from 'node:crypto';

export interface SignIn {
  /** The cookie value (32 random bytes, base64url). */
  id: string;
  /** The value the page sends in the CSRF header with every change (32 random bytes, base64url). */
  csrf: string;
}

/** Sign-ins kept at most; the oldest is forgotten first (its browser signs in again). */
export const MAX_SIGN_INS = 256;

export class SignIns {
  /** Keyed by a hash of the cookie value: a lookup's timing says nothing about stored values. */
  readonly #byHash = new Map<string, SignIn>();

  create(): SignIn {
    const signIn = { id: randomBytes(32).toString('base64url'), csrf: randomBytes(32).toString('base64url') };
    this.#byHash.set(digest(signIn.id), signIn);
    if (this.#byHash.size > MAX_SIGN_INS) this.#byHash.delete(this.#byHash.keys().next().value!);
    return signIn;
  }

  find(cookie: string | undefined): SignIn | undefined {
    if (cookie === undefined || cookie.length === 0 || cookie.length > 128) return undefined;
    return this.#byHash.get(digest(cookie));
  }
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}
