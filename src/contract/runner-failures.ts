// The words a runner's own failure (the command did not run) is told in, chosen by the stable code of its status line
// (`error <CODE> <message>`, crates/runner/src/error.rs): the runner's message is only the detail it carries.

/** The stable codes of the runner's own failures, as crates/runner/src/error.rs names them. */
export const RUNNER_ERROR_CODES = ['RUNNER_REQUEST', 'RUNNER_SETUP', 'RUNNER_SPAWN', 'RUNNER_SANDBOX_UNAVAILABLE'] as const;
export type RunnerErrorCode = (typeof RUNNER_ERROR_CODES)[number];

/** Each code's text from the runner's detail (the stage that failed and the OS's own words for why). */
const FAILURES: Record<RunnerErrorCode, (detail: string) => string> = {
  /** A request the runner could not decode: a fault of the host side, never of the command. */
  RUNNER_REQUEST: (detail) => `shellring-runner refused its request (${detail})`,
  /** Setting up, confining, forking or exec'ing failed: the stage and the OS error text, as a spawn failure is told. */
  RUNNER_SETUP: (detail) => detail,
  RUNNER_SPAWN: (detail) => detail,
  /** The read policy needs a mount namespace this host would not give: why, without the host's errno. */
  RUNNER_SANDBOX_UNAVAILABLE: () => 'sandbox unavailable: the session view needs a mount namespace',
};

/** A runner's failure as the call and the command's stderr tell it; an uncoded line is no runner's and says so. */
export function runnerFailure(code: RunnerErrorCode | undefined, detail: string): string {
  return code ? FAILURES[code](detail) : `shellring-runner could not be started: ${detail}`;
}
