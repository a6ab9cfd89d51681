// The finished jobs retention dropped, remembered per owner so reading one says when and why it went (and where its
// whole output still is) rather than that it never was. Bounded: the oldest memories go first.

/** Jobs of one owner remembered once forgotten; beyond this the oldest read as unknown again. */
const REMEMBERED = 256;

/** A finished job retention dropped: when, how it had ended, and the files that still hold its output. */
export interface Forgotten {
  at: number;
  status: string;
  files: { path: string; bytes: number }[];
}

export class ForgottenJobs {
  readonly #byOwner = new Map<string, Map<string, Forgotten>>();

  remember(ownerId: string, jobId: string, forgotten: Forgotten): void {
    const owned = this.#byOwner.get(ownerId) ?? new Map<string, Forgotten>();
    this.#byOwner.set(ownerId, owned.set(jobId, forgotten));
    if (owned.size > REMEMBERED) owned.delete(owned.keys().next().value!);
  }

  find(ownerId: string, jobId: string): Forgotten | undefined {
    return this.#byOwner.get(ownerId)?.get(jobId);
  }

  /** The owner closed: nothing of it is asked for again. */
  drop(ownerId: string): void {
    this.#byOwner.delete(ownerId);
  }
}
