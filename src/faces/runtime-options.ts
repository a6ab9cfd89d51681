// Composes createRuntime options for the faces: a person's sandbox mode and the face's approval channel.
import type { RuntimeOptions } from '../runtime/options.js';
import type { ApprovalOutcome, ApprovalRequest, CallApprovalRequest } from '../sandbox/approval.js';

export type { ApprovalOutcome, ApprovalRequest, CallApprovalRequest };

export type ApprovalHandler = (request: ApprovalRequest) => Promise<ApprovalOutcome>;

export interface FaceRuntimeOptions {
  /** A sandbox mode named by a person (`--sandbox`); createRuntime's own schema validates it. */
  sandboxMode?: string;
  /** Where escalation approvals go, unless the base options already name an approval service. */
  approve?: ApprovalHandler;
  /** Whether `approve` can reach a person for this session now (its client elicits, or a console answers). */
  available?: (sessionId: string) => boolean;
}

export function faceRuntimeOptions(base: RuntimeOptions, face: FaceRuntimeOptions): RuntimeOptions {
  const options: RuntimeOptions = { ...base };
  if (face.sandboxMode !== undefined) {
    options.sandbox = { ...options.sandbox, mode: face.sandboxMode as NonNullable<RuntimeOptions['sandbox']>['mode'] };
  }
  if (face.approve && options.approval === undefined) options.approval = { request: face.approve, available: face.available };
  return options;
}
