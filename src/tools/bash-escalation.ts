// The bash tool's sandbox mode for one call: a one-shot escalation a person approved, else the session's own mode,
// else the deployment's; a refused escalation is the one line the model reads, and nothing runs.
import { bashToolErrors, escalationReason } from '../contract/index.js';
import { ShellringError } from '../errors.js';
import type { JobRegistry } from '../jobs/registry.js';
import { askApproval, type ApprovalConfig } from '../sandbox/approval.js';
import { isSandboxMode, isWider, type SandboxMode } from '../sandbox/modes.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { BashArgs } from './bash-schema.js';
import type { CallContext } from './tool.js';

const refused = (message: string) => new ShellringError('SHELLRING_REFUSED', message);
const invalid = (message: string) => new ShellringError('SHELLRING_INVALID_ARGUMENTS', message);

/** `cwd`: the directory the command would run in, as the person asked reads it. */
export async function callMode(
  deps: { sandbox?: Sandbox; approval?: ApprovalConfig; jobs?: JobRegistry },
  args: BashArgs,
  context: CallContext,
  cwd: string,
): Promise<SandboxMode | undefined> {
  const { sandbox, approval } = deps;
  if (!sandbox) return undefined;
  const current = sandbox.modeFor(context.sessionId);
  const requested = args.sandbox_permissions;
  if (requested === undefined || requested === current) return current;
  // A narrower mode is refused whatever the justification: asking again with one would not help.
  if (!isSandboxMode(requested) || !isWider(requested, current)) throw refused(bashToolErrors.notWider(requested, current));
  if (args.justification === undefined) throw invalid(bashToolErrors.needsJustification);
  if (args.justification.trim() === '') throw invalid(bashToolErrors.blankJustification);
  // Nobody is asked under this policy: the model is told so, not that a person said no.
  if (approval?.policy === 'never') throw refused(bashToolErrors.neverApproved(requested));
  const request = context.approve ?? approval?.request;
  if (!request) throw refused(bashToolErrors.noApprovalService(requested));
  if (!context.sessionId) throw refused(bashToolErrors.noAgent(requested));
  // A person is never asked about a background call that the job limit would then refuse.
  if (args.run_in_background) deps.jobs?.assertAdmits(context.sessionId);
  const justification = args.justification.trim();
  const outcome = await askApproval(
    { policy: approval?.policy, request },
    {
      kind: 'escalation',
      sessionId: context.sessionId,
      toolName: 'bash',
      callId: context.callId,
      command: args.command,
      cwd,
      mode: requested,
      currentMode: current,
      justification,
      reason: escalationReason(requested, justification),
      signal: context.signal,
    },
  );
  if (outcome === 'allowed-once') return requested;
  if (outcome === 'rejected') throw refused(bashToolErrors.rejected(requested));
  if (outcome === 'cancelled') throw refused(bashToolErrors.cancelled(requested));
  throw refused(bashToolErrors.approvalUnavailable(requested));
}
