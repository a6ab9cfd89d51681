// The `shellring/mcp` subpath: the MCP faces, kept out of the package root so the SDK loads only when used.
//
// DESIGN: two protocol revisions, one runtime.
// - 2025-11-25 (initialize, Mcp-Session-Id, elicitation, resumable streams) is served exactly as before by
//   @modelcontextprotocol/sdk 1.x: server.ts, approval.ts, http.ts's session table and event store.
// - 2026-07-28 (no handshake; version and capabilities in each request's _meta; no sessions; approvals as
//   input_required; tasks as the io.modelcontextprotocol/tasks extension; Mcp-Method/Mcp-Name/Mcp-Param-* headers)
//   is served by @modelcontextprotocol/server 2.x from modern/: face.ts builds the SDK server per request (HTTP) or
//   per connection (stdio).
// - Negotiation (modern/opening.ts, modern/endpoint.ts): stdio decides on the first message (initialize or no
//   _meta version: 2025; otherwise 2026, and an unsupported version gets the SDK's -32022). HTTP decides per request:
//   a request with a 2025 session id, or without a 2026-or-later MCP-Protocol-Version header, takes the 2025 path
//   byte for byte; the rest go to the SDK's per-request handler. Both clients can use one endpoint at once.
// - What changes for 2026 clients, and why:
//   * State (modern/states.ts): with no protocol session, a call's cwd, jobs, sandbox mode and "allowed always"
//     prefixes live in a runtime session chosen by the call: the `session` argument (a handle minted by the
//     session_open tool, as the specification recommends for stateful servers), else the principal's default
//     state. Chosen because a model that never opens a handle still gets one coherent state (like a 2025
//     session), while handles give a principal several. The principal is the credential: the bearer token's
//     digest on HTTP, the process's one client on stdio. A handle or task is bound to its principal: another
//     principal's request finds it unknown, and job ids (`<kind>-<n>`) only resolve inside their own state.
//   * Handles, task ids and approval states start with this instance's id (`serve --instance-id`), so a load
//     balancer can route a request about them home: handles travel in Mcp-Param-Shellring-Session (`x-mcp-header`),
//     task ids in Mcp-Name (tasks/get, tasks/update, tasks/cancel), an approval's requestState in the body of the
//     retried tools/call (deploy/haproxy.cfg reads all three). tools/list and a call without a handle go anywhere.
//   * Approvals (modern/approval-round.ts, modern/request-state.ts): an escalation or a policy's `ask` ends the call
//     with input_required (the same form text as the 2025 elicitation) and a requestState sealed by HMAC-SHA256 over
//     the principal, the state, the tool, a digest of the exact arguments, the answers so far, the requested mode
//     and an expiry (10 minutes); the retry re-runs the call with the verified answers. A forged, altered, expired,
//     foreign or already used state is refused (-32602). The key is random per process and no key is shared through
//     config: a state is only useful on the instance holding the call's state, and the load balancer routes the
//     retry there by the instance the state names; single use is then enforced where the state was minted.
//   * Jobs as tasks (modern/tasks.ts): where a call declares the tasks extension, run_in_background and a promoted
//     call answer with a task; tasks/get reports the job's status line and, once ended, the job_output texts;
//     tasks/cancel is job_kill. job_output/job_list/job_kill keep working for every client.
//   * Completion notices (notifications/message) are 2025-only: 2026 has no unsolicited messages; poll the task.
// - Unchanged for both: the runtime, the tools and every model-facing text; the token, Origin, limits, drain, idle
//   expiry (2026 states expire like sessions), metrics and logs of `serve`.
export { createMcpServer, instructionsOf, NOTICE_LOGGER } from './server.js';
export type { McpServerOptions } from './server.js';
export { serveStdio } from './stdio.js';
export type { StdioServeOptions, StdioServer } from './stdio.js';
export { serveHttp } from './http.js';
export type { HttpServeOptions, HttpServer } from './http.js';
export { SessionRoutes } from './routes.js';
export { AuthBackoff } from '../http/auth-backoff.js';
export type { BackoffEvent, BackoffOptions } from '../http/auth-backoff.js';
export type { SessionEndpoint, SessionRoutesOptions } from './routes.js';
export { elicitApproval } from './approval.js';
export { TOOL_ANNOTATIONS } from './annotations.js';
export { DEFAULT_PROGRESS_INTERVAL_MS, followProgress } from './progress.js';
export type { CallProgress, CallProgressOptions, ProgressNotification } from './progress.js';
export { faceRuntimeOptions } from '../runtime-options.js';
export type { ApprovalHandler, ApprovalOutcome, ApprovalRequest, FaceRuntimeOptions } from '../runtime-options.js';
