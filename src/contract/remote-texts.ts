// Exact texts of the SSH executor: what a call reads when the host its session is placed on cannot serve it.
export const remoteErrors = {
  /** The connection ended while the call ran (its processes there end with their lifelines); `reason` is ssh's own
   * last line, when it printed one. */
  hostLost: (host: string, reason?: string) => `shellring: lost the connection to host ${host} while the command ran${reason ? `: ${reason}` : ''}`,
  /** No connection could be made for this call; `reason` is ssh's own last line (a refused host key, say). */
  unreachable: (host: string, reason: string) => `shellring: cannot reach host ${host}: ${reason}`,
  /** `unreachable`'s reason when ssh ended without a word of its own. */
  sshExited: 'ssh exited',
  /** The far end said nothing of the call by its timeout (a runner that does not run there, a stream it garbles);
   * `ms` is the call's own timeout. The channel is ended; the session's next call connects again. */
  noAnswer: (host: string, ms: number) => `shellring: host ${host} did not answer within ${ms}ms; the command's fate there is unknown`,
  /** The far end sent what no runner writes (`why`: what was wrong): the channel is ended. */
  garbled: (host: string, why: string) => `shellring: host ${host} sent a stream shellring-runner never writes (${why}); its connection was ended`,
  /** Every host has its maxSessions sessions. */
  noHost: 'shellring: every SSH host already holds its maxSessions sessions; nothing ran',
};
