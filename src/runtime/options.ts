// createRuntime's options, validated once with zod.
import { z } from 'zod';
import { executorConfigSchema } from '../executor/config.js';

export const runtimeOptionsSchema = z
  .object({
    executor: executorConfigSchema.optional(),
    /** Job limits and retention; false composes no job registry (foreground only). */
    jobs: z
      .union([
        z.literal(false),
        z
          .object({
            maxJobsPerOwner: z.number().int().positive().optional(),
            maxSettledPerOwner: z.number().int().nonnegative().optional(),
            readBytes: z.number().int().positive().optional(),
            pollMs: z.number().int().positive().optional(),
          })
          .strict(),
      ])
      .optional(),
    enableRunInBackground: z.boolean().default(true),
    promoteOnTimeout: z.boolean().default(true),
    dshHome: z.string().min(1).optional(),
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
  throw Object.assign(new Error(`invalid runtime options: ${issue.path.join('.') || '(root)'}: ${issue.message}`), {
    code: 'SHELLRING_INVALID_CONFIG',
  });
}
