// What each tool's structuredContent holds on success, as zod schemas: MCP lists them as outputSchema, tests parse by them.
import { z } from 'zod';
import type { SandboxFacts } from '../contract/index.js';

// Loose objects: a later field must not break a client that validates results against an older listing.
const stream = z.looseObject({
  text: z.string(),
  truncated: z.boolean(),
  spillPath: z.string().optional().describe('The file that holds the whole stream, when the tail was cut and the spill is complete.'),
  spillUnavailable: z.string().optional().describe('Why a cut stream has no spill file (the text of its [spill unavailable: ...] line).'),
});

// Typed as the contract's SandboxFacts, so the listed schema and the facts the executor reports cannot drift apart.
const sandboxFacts: z.ZodType<SandboxFacts> = z.looseObject({
  mode: z.string(),
  denied: z.boolean(),
  enforcement: z.enum(['full', 'partial']).optional(),
  runnerFailed: z.boolean().optional(),
});

/** One flat object for the three kinds, since MCP wants an object at the top of an outputSchema. */
export const bashOutputSchema = z.looseObject({
  kind: z.enum(['foreground', 'background', 'promoted']),
  exitCode: z.number().int().nullable().optional().describe('foreground: the exit status; null when a signal ended it.'),
  signal: z.string().nullable().optional().describe('foreground: the signal that ended the command.'),
  timedOut: z.boolean().optional(),
  aborted: z.boolean().optional(),
  stopped: z.string().optional().describe('foreground: the reason a person gave for stopping it.'),
  timeoutMs: z.number().optional(),
  stdout: stream.optional(),
  stderr: stream.optional(),
  sandbox: sandboxFacts.optional(),
  leftover: z
    .looseObject({ count: z.number().int().positive(), jobId: z.string().optional() })
    .optional()
    .describe('foreground: processes the command left running, and the background job that holds them, if any.'),
  jobId: z.string().optional().describe('background and promoted: the job to read with job_output.'),
  output: z.string().optional().describe('promoted: the output shown before the hand-off.'),
  waiting: z
    .looseObject({ kind: z.enum(['input', 'accept']), pid: z.number().int(), name: z.string() })
    .optional()
    .describe('promoted: what the command waits for, when known (input nobody can type, or connections).'),
});

const jobInfo = z.looseObject({
  id: z.string(),
  kind: z.string(),
  label: z.string(),
  description: z.string().optional(),
  ownerId: z.string(),
  state: z.enum(['running', 'stopping', 'completed', 'killed', 'failed']),
  detail: z.string().optional(),
  killReason: z.string().optional(),
  startedAt: z.number(),
  settledAt: z.number().optional(),
  foreground: z.boolean(),
});

export const jobOutputSchema = z.looseObject({
  jobId: z.string(),
  job: jobInfo.optional().describe('Absent once the job was dropped from the finished jobs kept.'),
  unreadBytes: z.number().int().nonnegative().describe('Bytes this read left for the next job_output call.'),
});

export const jobListSchema = z.looseObject({
  jobs: z.array(jobInfo.extend({ status: z.string().describe('The status line, as job_output ends with it.') })),
});

export const jobKillSchema = z.looseObject({
  jobId: z.string(),
  job: jobInfo.optional(),
});
