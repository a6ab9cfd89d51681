// createRuntime's options, validated once with zod.
import { z } from 'zod';
import { executorConfigSchema } from '../executor/config.js';
import { jobOptionsSchema } from '../jobs/options.js';
import { sandboxConfigSchema } from '../sandbox/config.js';
import { bashToolConfigSchema } from '../tools/bash-config.js';
import type { ApprovalOutcome, ApprovalRequest } from '../sandbox/approval.js';
import { ShellringError } from '../errors.js';

export const runtimeOptionsSchema = z
  .object({
    executor: executorConfigSchema.optional(),
    /** Job limits and retention; false composes no job registry (foreground only). */
    jobs: z.union([z.literal(false), jobOptionsSchema]).optional(),
    ...bashToolConfigSchema.shape,
    dshHome: z.string().min(1).optional(),
    /** Confine every command; `mode` is the standing default of every session. */
    sandbox: sandboxConfigSchema.optional(),
    /** The approval service for sandbox escalation; without `request` there is none. */
    approval: z
      .object({
        policy: z.enum(['ask', 'never']).default('ask'),
        request: z
          .custom<(request: ApprovalRequest) => Promise<ApprovalOutcome>>((value) => typeof value === 'function', {
            error: 'expected a function',
          })
          .optional(),
        available: z
          .custom<(sessionId: string) => boolean>((value) => typeof value === 'function', { error: 'expected a function' })
          .optional(),
      })
      .strict()
      .optional(),
    locateSessionJsonl: z
      .custom<(sessionId: string) => string | undefined>((value) => typeof value === 'function', {
        error: 'expected a function',
      })
      .optional(),
  })
  .strict();

export type RuntimeOptions = z.input<typeof runtimeOptionsSchema>;

export function parseRuntimeOptions(input: RuntimeOptions = {}) {
  const parsed = runtimeOptionsSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ShellringError('SHELLRING_INVALID_CONFIG', `invalid runtime options: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
}
