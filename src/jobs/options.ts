// The job registry's options: one zod schema holds their ranges and defaults for createRuntime and the Cordis plugin.
import { z } from 'zod';

export const jobOptionsSchema = z
  .object({
    maxJobsPerOwner: z.number().int().positive().default(10).describe('Running-or-stopping background jobs one session may hold.'),
    maxSettledPerOwner: z.number().int().nonnegative().default(20).describe('Finished jobs kept per session; the oldest are dropped first.'),
    readBytes: z.number().int().positive().default(64_000).describe('Most bytes one job_output read returns; a read that stops there ends with [more output available — call job_output again].'),
    pollMs: z.number().int().positive().default(100).describe('How often followed jobs are checked for new output (observer events), in milliseconds.'),
  })
  .strict();

export type JobRegistryOptions = z.input<typeof jobOptionsSchema>;
