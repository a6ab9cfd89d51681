// Builds a child's environment: the host's minus credentials and stale DSH_*, terminal overrides, trusted env, managed env.

const CREDENTIAL = /KEY|PASSWORD|SECRET|TOKEN/i;
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
  trusted?: Readonly<Record<string, string>>,
  managed?: Readonly<Record<string, string>>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(host)) {
    if (value === undefined || CREDENTIAL.test(name) || MANAGED.test(name)) continue;
    env[name] = value;
  }
  Object.assign(env, TERMINAL_OVERRIDES, trusted, managed);
  return env;
}
