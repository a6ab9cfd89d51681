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

/**
 * Text joined line by line as `appendLine` joins it, without ever reading back what it holds: V8 copies a joined
 * string into one piece to read its last character, and a command's 64 KB tail comes as a string kept outside its
 * heap (crates/node/src/js_text.rs), which a result should hold as it is.
 */
export class Lines {
  #text = '';
  /** The text is not empty and does not end in a newline. */
  #open = false;

  add(line: string): void {
    this.#text = this.#open ? `${this.#text}\n${line}` : this.#text + line;
    this.#open = line !== '' && !line.endsWith('\n');
  }

  get text(): string {
    return this.#text;
  }
}
