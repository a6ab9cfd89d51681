// job_output, job_list and job_kill: the model's controls over its own background jobs, one registry entry each.
import { z } from 'zod';
import type { JobRegistry } from '../jobs/registry.js';
import { jobErrors, jobTexts, jobToolDocs, JOBS_PROMPT, statusLine, toolTitles, waitingLine } from '../contract/index.js';
import { errorResult, textResult, type CallContext, type ToolDefinition, type ToolResult } from './tool.js';
import { plainArgs } from './plain-args.js';
import type { ToolAnnotations, ToolSpec } from './spec.js';
import { jobKillSchema, jobListSchema, jobOutputSchema } from './output-schemas.js';
import { ShellringError } from '../errors.js';

const MAX_WAIT_MS = 600_000;
const DEFAULT_WAIT_MS = 30_000;

const jobId = z
  .string({ error: (issue) => jobErrors.invalidId(issue.input) })
  .refine((value) => value.trim() !== '', { error: (issue) => jobErrors.invalidId(issue.input) })
  .describe(jobToolDocs.jobId);

const positive = (field: string) => (issue: { input?: unknown }) => jobErrors.positive(field, issue.input);

const outputArgs = z.looseObject({
  job_id: jobId,
  wait: z
    .boolean({ error: (issue) => jobErrors.type('wait', 'a boolean', issue.input) })
    .optional()
    .describe(jobToolDocs.wait),
  timeout_ms: z
    .number({ error: positive('timeout_ms') })
    .positive({ error: positive('timeout_ms') })
    .optional()
    .describe(jobToolDocs.timeoutMs),
});

const listSchema = z.looseObject({});

const killSchema = z.looseObject({
  job_id: jobId,
  reason: z.string({ error: (issue) => jobErrors.type('reason', 'a string', issue.input) }).optional().describe(jobToolDocs.reason),
});

/** Shared by the three job tools: the prompt shows it once. */
const JOBS_SECTION = { name: 'tool:jobs', order: 1010, text: JOBS_PROMPT };

/** A job tool: one fixed definition, called against the composition's job registry. */
function jobTool(
  definition: ToolDefinition,
  annotations: ToolAnnotations,
  run: (jobs: JobRegistry, raw: Record<string, unknown>, context: CallContext) => ToolResult | Promise<ToolResult>,
): ToolSpec {
  return {
    name: definition.name,
    annotations,
    needs: ['jobs'],
    prompt: () => JOBS_SECTION,
    build: ({ jobs }) => ({
      definitionFor: () => definition,
      async call(input, context) {
        try {
          return await run(jobs!, plainArgs(input), context);
        } catch (error) {
          return errorResult(error);
        }
      },
    }),
  };
}

// Reading moves the model's own cursor and nothing else; a second read returns only newer output.
export const jobOutputTool = jobTool(
  { name: 'job_output', description: jobToolDocs.jobOutput, schema: outputArgs, outputSchema: jobOutputSchema },
  { title: toolTitles.jobOutput, readOnlyHint: true, idempotentHint: false, openWorldHint: false },
  (jobs, raw, context) => output(jobs, parse(outputArgs, raw), context),
);

export const jobListTool = jobTool(
  { name: 'job_list', description: jobToolDocs.jobList, schema: listSchema, outputSchema: jobListSchema },
  { title: toolTitles.jobList, readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  (jobs, _raw, context) => list(jobs, context),
);

// Killing stops a running command for good; killing it again changes nothing more.
export const jobKillTool = jobTool(
  { name: 'job_kill', description: jobToolDocs.jobKill, schema: killSchema, outputSchema: jobKillSchema },
  { title: toolTitles.jobKill, readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  (jobs, raw, context) => {
    const args = parse(killSchema, raw);
    const text = jobs.killText(args.job_id, context.sessionId, args.reason);
    return textResult(text, { jobId: args.job_id, job: jobs.get(args.job_id) });
  },
);

function parse<T extends z.ZodType>(schema: T, input: object): z.output<T> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', parsed.error.issues[0]!.message);
  return parsed.data;
}

async function output(
  jobs: JobRegistry,
  args: z.output<typeof outputArgs>,
  context: CallContext,
): Promise<ToolResult> {
  const job = jobs.lookup(args.job_id, context.sessionId);
  const waitMs = Math.min(args.timeout_ms ?? DEFAULT_WAIT_MS, MAX_WAIT_MS);
  const expired = args.wait ? !(await jobs.wait(job.id, waitMs, context.signal)) && !context.signal?.aborted : false;
  const { text, unreadBytes } = jobs.output(job.id, expired ? waitMs : undefined);
  return textResult(text, { jobId: job.id, job: jobs.get(job.id), unreadBytes });
}

function list(jobs: JobRegistry, context: CallContext): ToolResult {
  const mine = jobs.list(context.sessionId).filter((job) => !job.foreground || job.state === 'running');
  const text = mine.length
    ? mine.map((job) => jobTexts.listLine(job.id, job.kind, job.state, job.label) + (job.waiting ? ` ${waitingLine(job.waiting)}` : '')).join('\n')
    : jobTexts.noJobs;
  return textResult(text, { jobs: mine.map((job) => ({ ...job, status: statusLine(job) })) });
}
