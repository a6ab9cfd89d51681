// The bash tool's words: its errors, the texts of background starts and hand-offs, and its prompt section.
import { shownJson } from './shown.js';

/** The `tool:bash` prompt section. */
export const BASH_PROMPT = 'Check the [exit code: N] marker on every bash result; investigate failures before moving on.';

/** A person stopping a foreground command without giving a reason. */
export const DEFAULT_STOP_REASON = 'cancelled by the user';

/**
 * Longest command, in UTF-8 bytes, that reaches bash as its own argument (`bash -c <command>`): Linux refuses an
 * argument of 128 KiB or more with its NUL (MAX_ARG_STRLEN, 32 pages). A longer one reaches bash on its stdin.
 */
export const MAX_COMMAND_BYTES = 131_071;

export const bashArgErrors = {
  command: 'invalid command: expected a non-empty string',
  description: 'invalid description: expected a non-empty string',
  timeoutMs: (value: unknown) =>
    `invalid timeoutMs: expected a positive number, got ${shownJson(value === undefined ? null : value)}`,
  sandboxPermissions: (value: unknown) =>
    `invalid sandbox_permissions: expected "workspace-write" or "danger-full-access", got ${shownJson(value)}`,
  /** A field of the wrong type (`expected` names the type, for example "a string"). */
  type: (field: string, expected: string, value: unknown) => `invalid ${field}: expected ${expected}, got ${shownJson(value)}`,
  nulInCommand: 'invalid command: contains a NUL byte, which no shell command can hold',
  nulInWorkdir: 'invalid workdir: contains a NUL byte, which no path can hold',
};

export const bashToolErrors = {
  justificationAlone: 'invalid escalation: justification is only valid together with sandbox_permissions',
  needsJustification: 'invalid escalation: sandbox_permissions requires a justification',
  blankJustification: 'invalid justification: expected a non-empty sentence',
  backgroundDisabled: 'run_in_background is disabled for this deployment (enableRunInBackground: false)',
  backgroundUnavailable:
    'background jobs unavailable: this runtime has no job registry (enable jobs, or load the jobsLocal and toolJobs plugins)',
  noSandbox: 'sandbox_permissions is not available in this composition (no sandboxing executor to escalate)',
  notWider: (requested: string, effective: string) =>
    `sandbox escalation to "${requested}" is not strictly wider than this call's current "${effective}" mode`,
  noApprovalService: (mode: string) =>
    `sandbox escalation to "${mode}" requires approval, but no approval service is composed`,
  noAgent: (mode: string) => `sandbox escalation to "${mode}" requires approval, but the call has no agent to route it through`,
  approvalUnavailable: (mode: string) =>
    `sandbox escalation to "${mode}" requires approval, but no approval channel is available`,
  rejected: (mode: string) => `the user rejected escalating this command to "${mode}"`,
  /** The approval policy is `never`: refused without asking anyone (no person rejected it). */
  neverApproved: (mode: string) =>
    `sandbox escalation to "${mode}" is refused without asking anyone: this deployment's approval policy is "never"`,
  cancelled: (mode: string) => `approval for escalating to "${mode}" was cancelled`,
  aborted: 'tool call aborted',
};

/** Longest label a bash job shows before it is cut. */
const LABEL_CHARS = 200;

/**
 * A bash job's label is its command: a command longer than one line or 200 characters shows its first line, cut
 * with `…` (counted in characters, so a cut never splits one).
 */
export function bashJobLabel(command: string): string {
  const lines = command.trim().split('\n');
  const first = [...lines[0]!.trimEnd()];
  if (lines.length === 1 && first.length <= LABEL_CHARS) return first.join('');
  return `${first.slice(0, LABEL_CHARS).join('')}…`;
}

/** What a person reads when asked to approve an escalation: what would run, where, in which mode, and why. */
export function approvalPrompt(request: {
  toolName: string;
  reason: string;
  command: string;
  cwd: string;
  mode: string;
  currentMode: string;
}): string {
  return [
    sentence(`The ${request.toolName} tool asks to ${request.reason}`),
    `Command: ${request.command}`,
    `Working directory: ${request.cwd}`,
    `Sandbox: ${request.mode} for this one call (otherwise ${request.currentMode}).`,
    'Allow it once?',
  ].join('\n');
}

/** The reason an escalation's approval request carries. */
export const escalationReason = (mode: string, justification: string) => `escalate sandbox to ${mode}: ${justification}`;

/** `text` ending as a sentence: with a period, unless it already ends with one (or `!`, `?`). */
export function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
