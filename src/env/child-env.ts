// Builds a child's environment: the host's as the policy filters it (no credentials, no stale DSH_*), terminal
// overrides, the non-interactive defaults, the policy's own variables, trusted env, managed env; then the
// full-screen stand-ins first on PATH.
import type { HostEnv } from './host-env.js';
import { NON_INTERACTIVE, withStandIns } from './non-interactive.js';

/** Keeps tools from colouring or assuming a terminal: there is none (pagers are among NON_INTERACTIVE). */
export const TERMINAL_OVERRIDES: Readonly<Record<string, string>> = Object.freeze({
  NO_COLOR: '1',
  TERM: 'dumb',
});

/** Never modifies the host's environment; later layers win. */
export function childEnv(
  host: HostEnv,
  sandboxed: boolean,
  trusted?: Readonly<Record<string, string>>,
  managed?: Readonly<Record<string, string>>,
): Record<string, string> {
  const env = Object.assign(host.inherit(sandboxed), TERMINAL_OVERRIDES, NON_INTERACTIVE, host.filter.policy.set, trusted, managed);
  const path = withStandIns(env.PATH);
  if (path !== undefined) env.PATH = path;
  return env;
}
