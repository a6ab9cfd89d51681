// The `shellring/mcp` subpath: the MCP faces, kept out of the package root so the SDK loads only when used.
export { createMcpServer, instructionsOf, NOTICE_LOGGER } from './server.js';
export type { McpServerOptions } from './server.js';
export { serveStdio } from './stdio.js';
export type { StdioServeOptions, StdioServer } from './stdio.js';
export { serveHttp } from './http.js';
export type { HttpServeOptions, HttpServer } from './http.js';
export { SessionRoutes } from './routes.js';
export type { SessionEndpoint, SessionRoutesOptions } from './routes.js';
export { elicitApproval } from './approval.js';
export { TOOL_ANNOTATIONS } from './annotations.js';
export { DEFAULT_PROGRESS_INTERVAL_MS, followProgress } from './progress.js';
export type { CallProgress, CallProgressOptions, ProgressNotification } from './progress.js';
export { faceRuntimeOptions } from '../runtime-options.js';
export type { ApprovalHandler, ApprovalOutcome, ApprovalRequest, FaceRuntimeOptions } from '../runtime-options.js';
