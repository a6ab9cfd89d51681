// Builds a child's environment: the host's as the policy filters it (no credentials, no stale DSH_*), terminal
// overrides, the non-interactive defaults, the policy's own variables, trusted env, managed env.
import type { EnvFilter } from './policy.js';
import { NON_INTERACTIVE } from './non-interactive.js';

const MANAGED = /^DSH_/i;

/** Keeps tools from colouring or assuming a terminal: there is none (pagers are among NON_INTERACTIVE). */
export const TERMINAL_OVERRIDES: Readonly<Record<string, string>> = Object.freeze({
  NO_COLOR: '1',
  TERM: 'dumb',
});

/** Never modifies `host`; later layers win. */
export function childEnv(
  host: NodeJS.ProcessEnv,
  filter: EnvFilter,
  sandboxed: boolean,
  trusted?: Readonly<Record<string, string>>,
  managed?: Readonly<Record<string, string>>,
): Record<string, string> {
  const env = filter.inherit(host, sandboxed);
  for (const name of Object.keys(env)) if (MANAGED.test(name)) delete env[name];
  Object.assign(env, TERMINAL_OVERRIDES, NON_INTERACTIVE, filter.policy.set, trusted, managed);
  return env;
}
