// shellring/cordis: the Cordis plugin contract. Needs schemastery at runtime and cordis for types; the package root loads neither.
import './services.js';

export * as toolBash from './tool-bash.js';
export * as bashLocal from './bash-local.js';
export * as bashSandbox from './bash-sandbox.js';
export * as shellEnv from './shell-env.js';
export * as jobsLocal from './jobs-local.js';
export * as toolJobs from './tool-jobs.js';
export * as tools from './tools.js';
export * as systemPrompt from './system-prompt.js';
export { ToolRegistry, type ToolEntry } from './tool-registry.js';
export { PromptRegistry } from './prompt-registry.js';
export { whenClosed } from './teardown.js';
export type { JobNotice, SessionPersistence } from './services.js';
