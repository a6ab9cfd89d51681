// createRuntime's options, validated once with zod.
import { z } from 'zod';
import { executorConfigSchema } from '../executor/config.js';
import { jobOptionsSchema } from '../jobs/options.js';
import { sandboxConfigSchema } from '../sandbox/config.js';
import { bashToolConfigSchema } from '../tools/bash-config.js';
import { policyConfigSchema } from '../policy/config.js';
import type { ApprovalOutcome, ApprovalRequest } from '../sandbox/approval.js';
import { parseConfig } from '../errors.js';

export const runtimeOptionsSchema = z
  .object({
    executor: executorConfigSchema.optional().describe('The local executor: timeouts, output caps, spill files, worker threads, environment, limits.'),
    jobs: z.union([z.literal(false), jobOptionsSchema]).optional().describe('Job limits and retention; false composes no job registry (foreground only, no job tools).'),
    ...bashToolConfigSchema.shape,
    dshHome: z.string().min(1).optional().describe('DSH_HOME for every command (default: a non-blank $DSH_HOME, else ~/.dsh).'),
    sandbox: sandboxConfigSchema.optional().describe('Confine every command in an OS sandbox; absent, commands run unconfined.'),
    approval: z
      .object({
        policy: z.enum(['ask', 'never']).default('ask').describe('ask routes escalation requests to request (or a session\'s own channel); never rejects them without asking.'),
        request: z
          .custom<(request: ApprovalRequest) => Promise<ApprovalOutcome>>((value) => typeof value === 'function', {
            error: 'expected a function',
          })
          .optional()
          .describe('Asks a person to approve one call in a wider sandbox mode; resolves allowed-once, rejected, cancelled or unavailable.'),
        available: z
          .custom<(sessionId: string) => boolean>((value) => typeof value === 'function', { error: 'expected a function' })
          .optional()
          .describe('Whether request can reach a person for this session now; escalation is offered only where it can.'),
      })
      .strict()
      .optional()
      .describe('The approval service for sandbox escalation and for commands the policy asks about; escalation is offered only where a channel exists.'),
    policy: policyConfigSchema
      .optional()
      .describe('The command policy: allow, ask and deny rules checked on every simple command before anything runs (docs/policies.md).'),
    locateSessionJsonl: z
      .custom<(sessionId: string) => string | undefined>((value) => typeof value === 'function', {
        error: 'expected a function',
      })
      .optional()
      .describe("Locates a session's JSONL file, which commands see as DSH_SESSION_JSONL."),
  })
  .strict();

export type RuntimeOptions = z.input<typeof runtimeOptionsSchema>;

export function parseRuntimeOptions(input: RuntimeOptions = {}) {
  return parseConfig(runtimeOptionsSchema, input, 'runtime options');
}
