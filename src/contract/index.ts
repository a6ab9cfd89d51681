// The model-facing contract in one module: every exact text, marker and prompt, and the renderers that compose them.
export { appendLine, markers } from './markers.js';
export { BASH_PROMPT, DEFAULT_STOP_REASON, bashArgErrors, bashToolErrors, escalationReason, bashJobLabel, approvalPrompt } from './bash-texts.js';
export { JOBS_PROMPT, jobErrors, jobTexts } from './job-texts.js';
export { bashEnvErrors, callErrors, executorErrors, sessionErrors } from './runtime-errors.js';
export { kindOf, shownId, shownJson } from './shown.js';
export { bashDescription, type DescriptionOptions } from './bash-description.js';
export { bashParamDocs, jobToolDocs } from './tool-docs.js';
export { renderForeground, type ForegroundFacts, type RenderedStream, type SandboxFacts } from './render-foreground.js';
export { renderRead, statusLine, type ReadSegments, type StatusFacts } from './render-job.js';
export { parseExitStatus, type ExitStatus } from './exit-status.js';
export { commandApprovalPrompt, commandApprovalReason, policyLoadErrors, policyPrompt, policyReasons, policyTexts, ruleLabel, unresolvedWhy } from './policy-texts.js';
