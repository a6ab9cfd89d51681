// The package root: re-exports only; importing it loads no native code.
export { createRuntime, Runtime, BASH_PROMPT } from './runtime/runtime.js';
export type { ListedTool, PromptSection, Notice } from './runtime/runtime.js';
export type { RuntimeOptions } from './runtime/options.js';
export { Session } from './runtime/session.js';
export type { SessionOptions, CallOptions } from './runtime/session.js';
export type { JobsView } from './runtime/jobs-view.js';
export type { JobInfo, JobEvent, JobState } from './jobs/types.js';
export { LocalExecutor } from './executor/local.js';
export type { ExecRequest, ExecSpec, RunResult, StreamResult, ProcessHandle, ProcessOutcome } from './executor/types.js';
export type { ExecutorConfigInput as ExecutorConfig } from './executor/config.js';
export { EnvRegistry } from './env/registry.js';
export type { EnvContributor, Execution } from './env/registry.js';
export { renderForeground } from './tools/render.js';
export { parseExitStatus } from './tools/exit-status.js';
export { presentCall, presentResult } from './tools/present.js';
export type { ToolResult } from './tools/tool.js';
export { getCaptureBackend } from './capture/index.js';
export type * from './capture/types.js';
