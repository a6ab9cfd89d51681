// The markers a result carries on lines of their own; the contract fixes each byte.

export const markers = {
  truncated: (path: string | undefined) => `[output truncated; full output: ${path ?? '(unavailable)'}]`,
  noOutput: '(no output)',
  stderr: '[stderr]',
  timedOut: (ms: number) => `[timed out after ${ms}ms]`,
  stopped: (reason: string) => `[stopped: ${reason}]`,
  signal: (name: string) => `[killed by signal: ${name}]`,
  exitCode: (code: number | null) => `[exit code: ${code}]`,
  denied: (mode: string) => `[sandbox: file access denied under ${mode} mode]`,
  escalationHint:
    '[sandbox: escalation available — retry this exact command once with sandbox_permissions (the narrowest wider mode that suffices) + justification; the approval prompt asks the user]',
  runnerFailed: (mode: string) =>
    `[sandbox: the sandbox runner itself failed under ${mode} mode — the command did not run; this is a sandbox problem, not a command failure]`,
  dropped: (paths: string[]) =>
    `[some output was dropped from memory; full output: ${paths.length ? paths.join(', ') : '(unavailable)'}]`,
};

/** Appends `line` on a line of its own: a newline first unless `body` is empty or already ends in one. */
export function appendLine(body: string, line: string): string {
  return body === '' || body.endsWith('\n') ? body + line : `${body}\n${line}`;
}
