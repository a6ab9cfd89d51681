// The host's variables as commands inherit them, filtered again only when the host's environment changed:
// enumerating `process.env` goes through Node's interceptor, a call per variable (~0.1 ms a command otherwise).
import { isMainThread } from 'node:worker_threads';
import { loadBinding } from '../native/loader.js';
import type { EnvFilter } from './policy.js';

/** Names the harness manages itself: a host's stale ones never reach a command. */
const MANAGED = /^DSH_/i;

export class HostEnv {
  readonly filter: EnvFilter;
  /** The version of the environment the cached sets were filtered from. */
  #version: number | undefined;
  /** The inherited set per `sandboxed`, for `#version`. */
  readonly #sets = new Map<boolean, Readonly<Record<string, string>>>();
  /** `process.env` as Node made it: on the main thread it is the process's environment block itself; a replaced
   * object, or a worker's copy, is read as it is, every time. */
  readonly #live = isMainThread ? process.env : undefined;
  readonly #binding = loadBinding();

  constructor(filter: EnvFilter) {
    this.filter = filter;
  }

  /** The host variables a command inherits (`sandboxed`: it runs confined), without managed names: a fresh object. */
  inherit(sandboxed: boolean): Record<string, string> {
    if (process.env !== this.#live) return withoutManaged(this.filter.inherit(process.env, sandboxed));
    const version = this.#binding.environVersion();
    if (version !== this.#version) {
      this.#version = version;
      this.#sets.clear();
    }
    let set = this.#sets.get(sandboxed);
    if (!set) this.#sets.set(sandboxed, (set = withoutManaged(this.filter.inherit(process.env, sandboxed))));
    return { ...set };
  }
}

/** Built afresh rather than by deleting: an object that lost a property is copied ~100x slower, and this one is
 * copied per command. */
function withoutManaged(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !MANAGED.test(name)));
}
