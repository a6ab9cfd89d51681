// The job registry's options: one zod schema holds their ranges and defaults for createRuntime and the Cordis plugin.
import { z } from 'zod';

export const jobOptionsSchema = z
  .object({
    maxJobsPerOwner: z.number().int().positive().default(10).describe('Running-or-stopping background jobs one session may hold.'),
    maxSettledPerOwner: z.number().int().nonnegative().default(20).describe('Finished jobs kept per session; the oldest are dropped first.'),
    readBytes: z.number().int().positive().default(64_000).describe('Most bytes one job_output read returns; a read that stops there ends with [more output available — call job_output again].'),
    waitMs: z.number().int().positive().default(30_000).describe('How long job_output with wait: true waits when the call names no timeout_ms, in milliseconds.'),
    maxWaitMs: z.number().int().positive().default(600_000).describe('The longest wait one job_output call may ask for, in milliseconds; a longer timeout_ms is cut to it, and the result says so.'),
    pollMs: z.number().int().positive().default(100).describe('How often followed jobs are checked for new output (observer events), in milliseconds.'),
    inputQuietMs: z.number().int().positive().default(300).describe('job_input: how long a terminal job prints nothing after its last output before its reply is taken as whole, in milliseconds.'),
    inputSilentMs: z.number().int().positive().default(2000).describe('job_input: how long a reply may take to begin; a job that prints nothing by then answers with no output, in milliseconds.'),
    inputWaitMs: z.number().int().positive().default(10_000).describe('job_input: the longest a call waits for a reply that keeps coming, in milliseconds.'),
    maxTerminalJobs: z.number().int().positive().default(8).describe('Live terminal jobs (bash with tty: true) one session may hold; each holds a pseudo-terminal.'),
  })
  .strict();

export type JobRegistryOptions = z.input<typeof jobOptionsSchema>;
