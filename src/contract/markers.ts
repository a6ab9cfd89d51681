// The markers a result carries on lines of their own; the contract fixes each byte.

/** Most paths a read refusal names; the rest are counted. */
const NAMED_PATHS = 3;

/** `host:port`, an IPv6 literal in brackets (as crates/netproxy/src/proxy.rs writes it). */
export const hostPort = (host: string, port: number) => `${host.includes(':') ? `[${host}]` : host}:${port}`;

export const markers = {
  truncated: (path: string | undefined) => `[output truncated; full output: ${path ?? '(unavailable)'}]`,
  noOutput: '(no output)',
  stderr: '[stderr]',
  timedOut: (ms: number) => `[timed out after ${ms}ms]`,
  notMoved: (limit: number) => `[not moved to background: job limit reached (${limit}); job_kill one to free a slot]`,
  stopped: (reason: string) => `[stopped: ${reason}]`,
  signal: (name: string) => `[killed by signal: ${name}]`,
  /** In place of the exit marker: the command's runner was killed before the command ended (a command may kill its
   * own), which took the command with it; what it printed is kept. */
  supervisionEnded:
    '[supervision ended: the runner supervising this command was killed before the command ended; the output above is what it printed until then, and how it ended is unknown]',
  exitCode: (code: number | null) => `[exit code: ${code}]`,
  denied: (mode: string) => `[sandbox: file access denied under ${mode} mode]`,
  /** A connection the domain network mode's proxy refused (crates/netproxy/src/proxy.rs writes the same line to the
   * refused client). An IPv6 address stands in brackets. */
  networkBlocked: (host: string, port: number, reason: string) => `[network: blocked ${hostPort(host, port)} — ${reason}]`,
  /** A command under network by name failed to look a name up: no name server answers inside the sandbox. */
  lookupFailed:
    '[network: names do not resolve inside this sandbox; commands reach allowed hosts through the proxy their environment names (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY), which resolves the names itself: use a client that honours it]',
  escalationHint:
    '[sandbox: escalation available — retry this exact command once with sandbox_permissions (the narrowest wider mode that suffices) + justification; the approval prompt asks the user]',
  /** Paths a command named that its session cannot read (its read view hides or refuses them), with what it can. */
  unreadable: (paths: readonly string[], readable: string) => {
    const named = paths.slice(0, NAMED_PATHS).join(', ') + (paths.length > NAMED_PATHS ? ` and ${paths.length - NAMED_PATHS} more` : '');
    return `[sandbox: ${named} ${paths.length === 1 ? 'is' : 'are'} outside what this session can read; it can read ${readable}]`;
  },
  /** After a read refusal, where someone can approve: no write mode helps, only leaving the sandbox does. */
  readEscalationHint:
    '[sandbox: only danger-full-access reads outside that view — if the task needs it, retry this exact command once with sandbox_permissions "danger-full-access" + justification; the approval prompt asks the user]',
  /** A call's timeoutMs above the configured cap, which it ran under instead. */
  timeoutCapped: (asked: number, cap: number) => `[timeoutMs capped at ${cap}: ${asked} is more than this server allows]`,
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
  /** An escalated command ended and what it left running was ended with it: an escalation covers its own command. */
  escalationLeftoverEnded: (count: number) =>
    `[${count === 1 ? '1 process' : `${count} processes`} the command left running ${count === 1 ? 'was' : 'were'} ended with it: an escalation lasts only as long as its own command]`,
  /** A confined command ended but left processes running, which its sandbox ended with it (nothing outlives its
   * command there); `background`: a long-lived process can run as a background job's command instead. */
  leftoverEnded: (count: number, background: boolean) =>
    `[${count === 1 ? '1 process left running was' : `${count} processes left running were`} ended with the command: in the sandbox nothing outlives its command${background ? '; run a server as the whole command of a run_in_background call, not with &' : ''}]`,
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
