// A session's own policy layers: the rules its embedding host gave it, and the prefixes a person allowed always
// for this session.
import type { CompiledPolicy } from './rules.js';

export class SessionPolicy {
  /** The embedding host's rules for this session, if any. */
  readonly layer: CompiledPolicy | undefined;
  readonly #approved: string[][] = [];
  readonly #keys = new Set<string>();

  constructor(layer: CompiledPolicy | undefined) {
    this.layer = layer;
  }

  /** The argv prefixes allowed always, in the order a person allowed them. */
  get approved(): readonly (readonly string[])[] {
    return this.#approved;
  }

  allowAlways(prefix: readonly string[]): void {
    const key = JSON.stringify(prefix);
    if (this.#keys.has(key)) return;
    this.#keys.add(key);
    this.#approved.push([...prefix]);
  }
}
