// The DSH_* registry: built-in managed variables plus named contributors with declared, described keys.
import { isAbsolute } from 'node:path';
import { bashEnvErrors as E } from '../contract/index.js';
import { ShellringError } from '../errors.js';

/** What a contributor sees of the call it contributes to. */
export interface Execution {
  sessionId?: string;
  callId?: string;
  toolName?: string;
  cwd?: string;
}

export interface EnvContributor {
  name: string;
  variables: Record<string, { description: string }>;
  resolve(execution: Execution): Record<string, string | undefined>;
}

export interface EnvDeclaration {
  key: string;
  description: string;
  owner: string;
}

const KEY = /^DSH_[A-Z][A-Z0-9_]*$/;
const BUILTIN = 'shellring';
const RESERVED: Record<string, string> = {
  DSH_HOME: 'absolute home of the harness state',
  DSH_SHELL: 'set to 1 in every managed shell',
  DSH_SESSION_ID: 'id of the calling agent session',
  DSH_SESSION_JSONL: 'absolute path of the session JSONL file, when a persistence backend locates one',
};

export interface EnvRegistryOptions {
  /** The resolved, absolute DSH_HOME. */
  dshHome: string;
  /** Locates the session JSONL file, when a persistence backend is composed. */
  locateSessionJsonl?: (sessionId: string) => string | undefined;
}

export class EnvRegistry {
  readonly #contributors = new Map<string, EnvContributor>();
  readonly #owners = new Map<string, string>();
  readonly #options: EnvRegistryOptions;

  constructor(options: EnvRegistryOptions) {
    this.#options = options;
  }

  /** The resolved, absolute DSH_HOME every command gets. */
  get dshHome(): string {
    return this.#options.dshHome;
  }

  /** Registers a contributor; returns a function that removes it again. */
  register(contributor: EnvContributor): () => void {
    const name = typeof contributor.name === 'string' ? contributor.name.trim() : '';
    if (!name) throw new ShellringError('SHELLRING_REGISTRATION', E.emptyName);
    if (this.#contributors.has(name)) throw new ShellringError('SHELLRING_REGISTRATION', E.duplicate(name));
    const keys = Object.keys(contributor.variables ?? {});
    for (const key of keys) {
      if (!KEY.test(key)) throw new ShellringError('SHELLRING_REGISTRATION', E.invalidKey(name, key));
      if (key in RESERVED) throw new ShellringError('SHELLRING_REGISTRATION', E.reserved(name, key));
      const description = contributor.variables[key]?.description;
      if (typeof description !== 'string' || !description.trim()) throw new ShellringError('SHELLRING_REGISTRATION', E.undescribed(name, key));
      const owner = this.#owners.get(key);
      if (owner) throw new ShellringError('SHELLRING_REGISTRATION', E.owned(key, owner, name));
    }
    this.#contributors.set(name, contributor);
    for (const key of keys) this.#owners.set(key, name);
    return () => {
      if (this.#contributors.get(name) !== contributor) return;
      this.#contributors.delete(name);
      for (const key of keys) this.#owners.delete(key);
    };
  }

  /** Every declared key, built-ins first, without running any contributor. */
  list(): EnvDeclaration[] {
    const builtins = Object.entries(RESERVED).map(([key, description]) => ({ key, description, owner: BUILTIN }));
    const declared = [...this.#contributors.values()].flatMap((c) =>
      Object.entries(c.variables).map(([key, v]) => ({ key, description: v.description, owner: c.name })),
    );
    return [...builtins, ...declared];
  }

  /** The managed environment of one call: a frozen, key-sorted object. */
  collect(execution: Execution): Readonly<Record<string, string>> {
    const out: Record<string, string> = { DSH_HOME: this.#options.dshHome, DSH_SHELL: '1' };
    if (execution.sessionId) {
      out.DSH_SESSION_ID = execution.sessionId;
      const jsonl = locate(this.#options.locateSessionJsonl, execution.sessionId);
      if (jsonl) out.DSH_SESSION_JSONL = jsonl;
    }
    for (const contributor of this.#contributors.values()) {
      const values = contributor.resolve(execution) ?? {};
      for (const [key, value] of Object.entries(values)) {
        if (!(key in contributor.variables)) throw new ShellringError('SHELLRING_REGISTRATION', E.undeclared(contributor.name, key));
        if (value === undefined) continue;
        if (typeof value !== 'string') throw new ShellringError('SHELLRING_REGISTRATION', E.nonString(contributor.name, key));
        out[key] = value;
      }
    }
    const sorted: Record<string, string> = {};
    for (const key of Object.keys(out).sort()) sorted[key] = out[key]!;
    return Object.freeze(sorted);
  }
}

/**
 * The session's JSONL path, or nothing: the path is a location hint, so a persistence backend that fails or
 * answers something other than an absolute path leaves the variable out rather than failing the command.
 */
function locate(locator: ((sessionId: string) => string | undefined) | undefined, sessionId: string): string | undefined {
  try {
    const path = locator?.(sessionId);
    return typeof path === 'string' && isAbsolute(path) ? path : undefined;
  } catch {
    return undefined;
  }
}
