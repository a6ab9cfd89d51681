// The `shellring/console` subpath: the web console as a request handler a host mounts in its own server.
export { createConsoleHandler } from './handler.js';
export type { ConsoleHandler, ConsoleOptions } from './handler.js';
export { ConsoleApprovals } from './approvals.js';
export type { ApprovalDecision, PendingApproval } from './approvals.js';
export { SIGN_IN_COOKIE, CSRF_HEADER } from './auth.js';
