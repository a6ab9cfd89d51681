// Why a served face refused a tool call before anything ran: a server shutting down, a cap on commands at once, or
// the cap on sessions (a 2026-07-28 state counts as one).
export const admissionErrors = {
  draining: 'this server is shutting down: the call did not run; start a new session to continue',
  sessionLimit: (limit: number) =>
    `too many commands running in this session (limit: ${limit}); wait for one to finish or stop a background job with job_kill, then retry`,
  instanceLimit: (limit: number) =>
    `this server is running as many commands as it allows for all sessions (limit: ${limit}); nothing ran, retry in a moment`,
  sessionsFull: (limit: number) =>
    `no session was opened: this server holds as many sessions as it allows (limit: ${limit}, counting every client's sessions and session_open handles); use a handle you already have, or retry once an idle session has ended`,
};
