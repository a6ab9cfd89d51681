// Exact texts of the SSH executor: what a call reads when the host its session is placed on cannot serve it.
export const remoteErrors = {
  /** The connection ended while the call ran (its processes there end with their lifelines); `reason` is ssh's own
   * last line, when it printed one. */
  hostLost: (host: string, reason?: string) => `shellring: lost the connection to host ${host} while the command ran${reason ? `: ${reason}` : ''}`,
  /** No connection could be made for this call; `reason` is ssh's own last line (a refused host key, say). */
  unreachable: (host: string, reason: string) => `shellring: cannot reach host ${host}: ${reason}`,
  /** `unreachable`'s reason when ssh ended without a word of its own. */
  sshExited: 'ssh exited',
  /** Every host has its maxSessions sessions. */
  noHost: 'shellring: every SSH host already holds its maxSessions sessions; nothing ran',
  /** A frame whose length no runner writes: the stream cannot be read on, so the channel ends. */
  badFrame: (length: number) => `a frame of ${length} bytes`,
};
