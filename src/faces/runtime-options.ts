// Composes createRuntime options for the faces, adding sandbox and approval only where this build's runtime accepts them.
import { runtimeOptionsSchema, type RuntimeOptions } from '../runtime/options.js';
import type { ApprovalOutcome, ApprovalRequest } from '../sandbox/approval.js';

export type { ApprovalOutcome, ApprovalRequest };

export type ApprovalHandler = (request: ApprovalRequest) => Promise<ApprovalOutcome>;

export interface FaceRuntimeOptions {
  /** A sandbox mode named by a person (`--sandbox`); refused when the runtime has no sandbox. */
  sandboxMode?: string;
  /** Where escalation approvals go; dropped silently when the runtime has no approval option. */
  approve?: ApprovalHandler;
}

/** Thrown when a person asks for a sandbox that this build cannot provide. */
export class SandboxUnavailableError extends Error {
  readonly code = 'SHELLRING_SANDBOX_UNAVAILABLE';
  constructor() {
    super('the sandbox is not available in this build of shellring (the runtime has no sandbox option)');
  }
}

/** True when createRuntime's strict option schema has this top-level key. */
export function runtimeAccepts(key: string): boolean {
  return Object.hasOwn(runtimeOptionsSchema.shape, key);
}

export function faceRuntimeOptions(base: RuntimeOptions, face: FaceRuntimeOptions): RuntimeOptions {
  // Loosely typed: the mode is a person's unchecked string, which createRuntime's own schema validates, and each
  // key is added only after the check that this build's runtime declares it.
  const options: Record<string, unknown> = { ...base };
  if (face.sandboxMode !== undefined) {
    if (!runtimeAccepts('sandbox')) throw new SandboxUnavailableError();
    options.sandbox = { ...(options.sandbox as object | undefined), mode: face.sandboxMode };
  }
  if (face.approve && runtimeAccepts('approval') && options.approval === undefined) {
    options.approval = { request: face.approve };
  }
  return options as RuntimeOptions;
}
