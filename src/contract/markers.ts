// The markers a result carries on lines of their own; the contract fixes each byte.

export const markers = {
  truncated: (path: string | undefined) => `[output truncated; full output: ${path ?? '(unavailable)'}]`,
  noOutput: '(no output)',
  stderr: '[stderr]',
  timedOut: (ms: number) => `[timed out after ${ms}ms]`,
  notMoved: (limit: number) => `[not moved to background: job limit reached (${limit}); job_kill one to free a slot]`,
  stopped: (reason: string) => `[stopped: ${reason}]`,
  signal: (name: string) => `[killed by signal: ${name}]`,
  exitCode: (code: number | null) => `[exit code: ${code}]`,
  denied: (mode: string) => `[sandbox: file access denied under ${mode} mode]`,
  escalationHint:
    '[sandbox: escalation available — retry this exact command once with sandbox_permissions (the narrowest wider mode that suffices) + justification; the approval prompt asks the user]',
  runnerFailed: (mode: string) =>
    `[sandbox: the sandbox runner itself failed under ${mode} mode — the command did not run; this is a sandbox problem, not a command failure]`,
  /** A command ended but left processes running: how many, and what ends them (a job named here, or only the
   * session's end where no job could hold them). */
  leftover: (count: number, jobId?: string) => {
    const they = count === 1 ? '1 process' : `${count} processes`;
    const ends = count === 1 ? 'it ends' : 'they end';
    return jobId === undefined
      ? `[${they} left running; ${ends} on ${count === 1 ? 'its' : 'their'} own or when the session closes]`
      : `[${they} left running as background job ${jobId}; ${ends} on ${count === 1 ? 'its' : 'their'} own, with job_kill, or when the session closes]`;
  },
  dropped: (paths: string[]) =>
    `[some output was dropped from memory; full output: ${paths.length ? paths.join(', ') : '(unavailable)'}]`,
};

/** Appends `line` on a line of its own: a newline first unless `body` is empty or already ends in one. */
export function appendLine(body: string, line: string): string {
  return body === '' || body.endsWith('\n') ? body + line : `${body}\n${line}`;
}
