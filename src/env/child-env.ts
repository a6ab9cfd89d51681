// Builds a child's environment: the host's as the policy filters it (no credentials, no stale DSH_*), terminal
// overrides, the policy's own variables, trusted env, managed env.
import type { EnvFilter } from './policy.js';

const MANAGED = /^DSH_/i;

/** Keeps tools from paging, colouring or assuming a terminal: there is none. */
export const TERMINAL_OVERRIDES: Readonly<Record<string, string>> = Object.freeze({
  NO_COLOR: '1',
  TERM: 'dumb',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
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
  Object.assign(env, TERMINAL_OVERRIDES, filter.policy.set, trusted, managed);
  return env;
}
