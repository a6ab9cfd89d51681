// What a 2026-07-28 MCP client and its model read that a 2025-11-25 client never sees: session handles and tasks.
import { shownJson } from './shown.js';

export const modernToolDocs = {
  sessionOpen:
    'Open a shellring session of your own and get its handle. Pass the handle as `session` to bash, job_output, job_list and job_kill to keep a separate working state (background jobs, approvals allowed always); calls without `session` share your default state. A session ends after it has been idle for a while.',
  session:
    'The handle session_open returned. Without it, the call uses your default state (shared by every call of yours that gives no handle).',
};

export const modernTexts = {
  sessionOpened: (handle: string) =>
    `opened session ${handle}: pass "session": "${handle}" to bash, job_output, job_list and job_kill to use it`,
  /** A task's statusMessage while its job runs: with the newest line it printed, once it printed one. */
  /** `waiting`: the waiting line of a terminal job found reading its terminal. */
  taskWorking: (jobId: string, newestLine?: string, waiting?: string) =>
    `job ${jobId} is running${newestLine ? `; newest line: ${newestLine}` : ''}${waiting ? ` ${waiting}` : ''}`,
  /** The stop reason of a task's job cancelled with tasks/cancel (`[stopped: <reason>]`). */
  taskCancelled: 'cancelled by the client (tasks/cancel)',
};

export const modernErrors = {
  session: (value: unknown) => `invalid session: expected the handle session_open returned, got ${shownJson(value)}`,
  unknownSession: (handle: string) =>
    `session ${handle} is unknown here: it expired, its server restarted, or it was opened with other credentials; call session_open for a new one`,
  unknownTask: (taskId: string) => `task ${taskId} is unknown here: it expired, or it belongs to other credentials`,
  stateInvalid: 'Invalid or expired requestState',
};
