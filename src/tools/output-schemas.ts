// What each tool's structuredContent holds on success, as zod schemas: MCP lists them as outputSchema, tests parse by them.
import { z } from 'zod';
import { outputSchemaDocs, type SandboxFacts } from '../contract/index.js';

// Loose objects: a later field must not break a client that validates results against an older listing.
const stream = z.looseObject({
  text: z.string(),
  truncated: z.boolean(),
  spillPath: z.string().optional().describe(outputSchemaDocs.spillPath),
  spillUnavailable: z.string().optional().describe(outputSchemaDocs.spillUnavailable),
});

// Typed as the contract's SandboxFacts, so the listed schema and the facts the executor reports cannot drift apart.
const sandboxFacts: z.ZodType<SandboxFacts> = z.looseObject({
  mode: z.string(),
  denied: z.boolean(),
  enforcement: z.enum(['full', 'partial']).optional(),
  runnerFailed: z.boolean().optional(),
  unreadable: z.array(z.string()).optional().describe(outputSchemaDocs.unreadable),
});

/** One flat object for the three kinds, since MCP wants an object at the top of an outputSchema. */
export const bashOutputSchema = z.looseObject({
  kind: z.enum(['foreground', 'background', 'promoted']),
  exitCode: z.number().int().nullable().optional().describe(outputSchemaDocs.exitCode),
  signal: z.string().nullable().optional().describe(outputSchemaDocs.signal),
  timedOut: z.boolean().optional(),
  aborted: z.boolean().optional(),
  stopped: z.string().optional().describe(outputSchemaDocs.stopped),
  timeoutMs: z.number().optional(),
  stdout: stream.optional(),
  stderr: stream.optional(),
  sandbox: sandboxFacts.optional(),
  leftover: z
    .looseObject({ count: z.number().int().positive(), jobId: z.string().optional() })
    .optional()
    .describe(outputSchemaDocs.leftover),
  ended: z.number().int().positive().optional().describe(outputSchemaDocs.ended),
  networkBlocked: z
    .array(z.looseObject({ host: z.string(), port: z.number().int(), reason: z.string() }))
    .optional()
    .describe(outputSchemaDocs.networkBlocked),
  jobId: z.string().optional().describe(outputSchemaDocs.jobId),
  output: z.string().optional().describe(outputSchemaDocs.output),
  waiting: z
    .looseObject({ kind: z.enum(['input', 'accept']), pid: z.number().int(), name: z.string() })
    .optional()
    .describe(outputSchemaDocs.waiting),
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
  job: jobInfo.optional().describe(outputSchemaDocs.job),
  unreadBytes: z.number().int().nonnegative().describe(outputSchemaDocs.unreadBytes),
});

export const jobListSchema = z.looseObject({
  jobs: z.array(jobInfo.extend({ status: z.string().describe(outputSchemaDocs.status) })),
});

export const jobKillSchema = z.looseObject({
  jobId: z.string(),
  job: jobInfo.optional(),
});
