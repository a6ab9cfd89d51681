// Why a served face refused a tool call before anything ran: a server shutting down, or a cap on commands at once.
export const admissionErrors = {
  draining: 'this server is shutting down: the call did not run; start a new session to continue',
  sessionLimit: (limit: number) =>
    `too many commands running in this session (limit: ${limit}); wait for one to finish or stop a background job with job_kill, then retry`,
  instanceLimit: (limit: number) =>
    `this server is running as many commands as it allows for all sessions (limit: ${limit}); nothing ran, retry in a moment`,
};
