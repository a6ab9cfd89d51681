// The bash tool's switches: one zod schema holds their defaults for createRuntime and the Cordis plugin.
import { z } from 'zod';

export const bashToolConfigSchema = z
  .object({
    enableRunInBackground: z.boolean().default(true).describe('Offer run_in_background (with a job registry); when false, background calls are refused.'),
    promoteOnTimeout: z.boolean().default(true).describe('A foreground command still running at its timeout becomes a background job instead of being killed.'),
  })
  .strict();

export type BashToolConfig = z.output<typeof bashToolConfigSchema>;
