// The bash tool's switches: one zod schema holds their defaults for createRuntime and the Cordis plugin.
import { z } from 'zod';

export const bashToolConfigSchema = z
  .object({
    /** Expose run_in_background while a job registry is composed; when false, forced background calls are refused. */
    enableRunInBackground: z.boolean().default(true),
    /** Keep a foreground command that reaches its timeout running as its background job instead of killing it. */
    promoteOnTimeout: z.boolean().default(true),
  })
  .strict();

export type BashToolConfig = z.output<typeof bashToolConfigSchema>;
