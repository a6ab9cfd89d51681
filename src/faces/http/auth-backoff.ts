// Wrong credentials slow down per source address: after a few, a wrong one is answered 429 with Retry-After, for a
// time that doubles with each block. A fixed-size table holds the addresses, so a flood of them costs no more memory
// than that. Callers judge the credential first: the right token passes at once from any address, blocked or not.
import type { IncomingMessage } from 'node:http';

export interface BackoffOptions {
  /** Addresses remembered at most; the one wrong longest ago is forgotten first. Default 4096. */
  capacity?: number;
  /** Wrong credentials an address may present before the first block. Default 10. */
  free?: number;
  /** The first block; each next one doubles, up to `maxMs`. Defaults 1000 and 60000. */
  baseMs?: number;
  maxMs?: number;
  /** An address with no wrong credential for this long starts over. Default 10 minutes. */
  forgetMs?: number;
  clock?: () => number;
  /** Told when an address is blocked (the server logs it). */
  onBlock?: (event: BackoffEvent) => void;
}

export interface BackoffEvent {
  /** The address, or its /64 for IPv6. */
  source: string;
  /** Wrong credentials counted for it. */
  failures: number;
  retryAfterSeconds: number;
}

interface Entry {
  failures: number;
  /** Until when its wrong credentials are answered 429. */
  blockedUntil: number;
  lastFailure: number;
}

export class AuthBackoff {
  readonly #entries = new Map<string, Entry>();
  readonly #capacity: number;
  readonly #free: number;
  readonly #baseMs: number;
  readonly #maxMs: number;
  readonly #forgetMs: number;
  readonly #clock: () => number;
  readonly #onBlock: BackoffOptions['onBlock'];

  constructor(options: BackoffOptions = {}) {
    this.#capacity = options.capacity ?? 4096;
    this.#free = options.free ?? 10;
    this.#baseMs = options.baseMs ?? 1000;
    this.#maxMs = options.maxMs ?? 60_000;
    this.#forgetMs = options.forgetMs ?? 10 * 60_000;
    this.#clock = options.clock ?? Date.now;
    this.#onBlock = options.onBlock;
  }

  /** Addresses remembered now. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * A request presented a wrong credential: the seconds it must be told to wait (answer 429), or undefined
   * (answer 401). Failures during a block are not counted: the block is answer enough.
   */
  failed(req: IncomingMessage): number | undefined {
    const source = sourceOf(req.socket.remoteAddress);
    const now = this.#clock();
    let entry = this.#entries.get(source);
    if (entry && now - entry.lastFailure >= this.#forgetMs) entry = undefined;
    entry ??= { failures: 0, blockedUntil: 0, lastFailure: now };
    // Re-inserted, so the table's first entry is always the one wrong longest ago.
    this.#entries.delete(source);
    this.#entries.set(source, entry);
    if (this.#entries.size > this.#capacity) this.#entries.delete(this.#entries.keys().next().value!);
    entry.lastFailure = now;
    if (now < entry.blockedUntil) return Math.ceil((entry.blockedUntil - now) / 1000);
    entry.failures += 1;
    if (entry.failures <= this.#free) return undefined;
    const blockMs = Math.min(this.#baseMs * 2 ** Math.min(entry.failures - this.#free - 1, 30), this.#maxMs);
    entry.blockedUntil = now + blockMs;
    const retryAfterSeconds = Math.ceil(blockMs / 1000);
    this.#onBlock?.({ source, failures: entry.failures, retryAfterSeconds });
    return retryAfterSeconds;
  }
}

/** The key of an address: IPv4 as it is (also when mapped into IPv6), IPv6 by its /64, which one host usually holds whole. */
export function sourceOf(address: string | undefined): string {
  if (!address) return 'unknown';
  const plain = address.replace(/%.*$/, '');
  const v4 = /^(?:::ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(plain);
  if (v4) return v4[1]!;
  if (!plain.includes(':')) return plain;
  const [head = '', tail] = plain.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group || '0', 16).toString(16))
    .join(':')}::/64`;
}
