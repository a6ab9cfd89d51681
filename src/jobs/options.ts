// The job registry's options: one zod schema holds their ranges and defaults for createRuntime and the Cordis plugin.
import { z } from 'zod';

export const jobOptionsSchema = z
  .object({
    /** Running-or-stopping jobs one owner may hold. */
    maxJobsPerOwner: z.number().int().positive().default(10),
    /** Settled jobs kept per owner; the oldest beyond this are removed. */
    maxSettledPerOwner: z.number().int().nonnegative().default(20),
    /** Most bytes one consuming read returns. */
    readBytes: z.number().int().positive().default(64_000),
    /** How often live jobs are checked for new output (observer events). */
    pollMs: z.number().int().positive().default(100),
  })
  .strict();

export type JobRegistryOptions = z.input<typeof jobOptionsSchema>;
