// The model-facing contract in one module: every exact text, marker and prompt, and the renderers that compose them.
export { appendLine, markers } from './markers.js';
export { spillUnavailable } from './spill-texts.js';
export { BASH_PROMPT, DEFAULT_STOP_REASON, MAX_COMMAND_BYTES, bashArgErrors, bashToolErrors, escalationReason, bashJobLabel, approvalPrompt } from './bash-texts.js';
export { JOBS_PROMPT, jobErrors, jobTexts } from './job-texts.js';
export { bashEnvErrors, callErrors, executorErrors, MAX_SESSION_ID_CHARS, runtimeErrors, sessionErrors } from './runtime-errors.js';
export { kindOf, shownId, shownJson } from './shown.js';
export { bashDescription, type DescriptionOptions } from './bash-description.js';
export { bashParamDocs, jobToolDocs } from './tool-docs.js';
export { renderForeground, type ForegroundFacts, type RenderedStream, type SandboxFacts } from './render-foreground.js';
export { renderRead, statusLine, type ReadSegments, type StatusFacts } from './render-job.js';
export { foregroundExit, parseExitStatus, type ExitStatus } from './exit-status.js';
export { environmentTexts } from './environment-texts.js';
export { approvalChoices } from './approval-choices.js';
export { supervisionErrors } from './supervision-errors.js';
export { workspaceRootErrors } from './workspace-errors.js';
export { SANDBOX_CONTEXT_SECTION, sandboxContext, type SandboxContextFacts } from './sandbox-context.js';
export { handOffWaiting, waitingLine, type WaitingFinding } from './waiting-texts.js';
export { commandApprovalPrompt, commandApprovalReason, policyLoadErrors, policyPrompt, policyReasons, policyTexts, ruleLabel, unresolvedWhy } from './policy-texts.js';
