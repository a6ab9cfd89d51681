// The package root: re-exports only; importing it loads no native code.
export { createRuntime, Runtime } from './runtime/runtime.js';
export { BASH_PROMPT } from './contract/index.js';
export type { ListedTool, PromptSection, Notice } from './runtime/runtime.js';
export type { RuntimeOptions } from './runtime/options.js';
export { Session } from './runtime/session.js';
export type { SessionOptions, CallOptions, CallEvent } from './runtime/session.js';
export type { JobsView } from './runtime/jobs-view.js';
export type { JobInfo, JobEvent, JobState } from './jobs/types.js';
export { LocalExecutor } from './executor/local.js';
export type { ExecRequest, ExecSpec, Executor, ExecutorStats, RunResult, SandboxHost, SpillPlace, SpillRead, StreamResult, ProcessHandle, ProcessOutcome } from './executor/types.js';
export type { ExecutorConfigInput as ExecutorConfig } from './executor/config.js';
export { EnvRegistry } from './env/registry.js';
export { SANDBOX_MODES } from './sandbox/modes.js';
export type { SandboxMode } from './sandbox/modes.js';
export type { ApprovalOutcome, ApprovalRequest, ApprovalConfig, ApprovalHandler, CommandApprovalRequest, EscalationApprovalRequest, NetworkApprovalRequest } from './sandbox/approval.js';
export { check, type CheckContext, type Evaluation, type PolicyMatch } from './policy/check.js';
export { loadPolicy } from './policy/load.js';
export type { Decision, PolicyConfig, PolicyRule } from './policy/config.js';
export type { CompiledPolicy, PolicyLayer, RuleRef } from './policy/rules.js';
export type { EnvContributor, Execution } from './env/registry.js';
export { renderForeground, parseExitStatus } from './contract/index.js';
export { presentCall, presentResult } from './tools/present.js';
export type { ToolResult } from './tools/tool.js';
export type {
  BashArguments,
  BashResult,
  BashForegroundResult,
  BashBackgroundResult,
  BashPromotedResult,
  JobOutputArguments,
  JobOutputResult,
  JobListArguments,
  JobListResult,
  JobKillArguments,
  JobKillResult,
  JobInputArguments,
  ToolArgumentsMap,
  ToolResultsMap,
  ToolName,
  ToolCallResult,
  ToolCallRest,
} from './tools/tool-types.js';
export { ShellringError, isShellringError, type ShellringErrorCode } from './errors.js';
export type * from './capture/types.js';
