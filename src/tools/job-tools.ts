// job_output, job_list and job_kill: the model's controls over its own background jobs.
import { z } from 'zod';
import type { JobRegistry } from '../jobs/registry.js';
import { jobErrors, jobTexts } from '../jobs/strings.js';
import { statusLine } from '../jobs/render.js';
import { errorResult, textResult, ToolError, type CallContext, type ToolDefinition, type ToolResult } from './tool.js';

const MAX_WAIT_MS = 600_000;
const DEFAULT_WAIT_MS = 30_000;

const jobId = z
  .string({ error: (issue) => jobErrors.invalidId(issue.input) })
  .refine((value) => value.trim() !== '', { error: (issue) => jobErrors.invalidId(issue.input) })
  .describe('The job id, as `started background job <id>` or a hand-off named it (for example "bash-1").');

const positive = (field: string) => (issue: { input?: unknown }) =>
  `invalid ${field}: expected a positive number, got ${JSON.stringify(issue.input ?? null)}`;

const outputSchema = z.looseObject({
  job_id: jobId,
  wait: z
    .boolean()
    .optional()
    .describe('Block until the job finishes or timeout_ms passes, then read. Prefer this to calling job_output repeatedly.'),
  timeout_ms: z
    .number({ error: positive('timeout_ms') })
    .positive({ error: positive('timeout_ms') })
    .optional()
    .describe('With wait: how long to wait, in milliseconds (default 30000, at most 600000).'),
});

const listSchema = z.looseObject({});

const killSchema = z.looseObject({
  job_id: jobId,
  reason: z.string().optional().describe('Why the job is no longer needed; kept in its status.'),
});

export const JOBS_PROMPT =
  'Background jobs: keep track of the job ids you start. Do not poll job_output in a loop; you are notified when a job finishes, and job_output with wait: true blocks until then. Before you give your final answer, collect the output you need from your jobs and stop the ones you no longer need with job_kill.';

export function jobToolDefinitions(): ToolDefinition[] {
  return [
    {
      name: 'job_output',
      description:
        'Read the newest output of one of your background jobs: only what you have not read yet, then its status line ([status: running] or how it ended). With wait: true, first wait for the job to finish.',
      schema: outputSchema,
    },
    {
      name: 'job_list',
      description: 'List your background jobs, one line each: id, kind, status and label.',
      schema: listSchema,
    },
    {
      name: 'job_kill',
      description: 'Stop one of your background jobs (TERM to its processes, KILL after a grace period).',
      schema: killSchema,
    },
  ];
}

export async function callJobTool(
  jobs: JobRegistry,
  name: string,
  input: unknown,
  context: CallContext,
): Promise<ToolResult> {
  try {
    const raw = input && typeof input === 'object' ? input : {};
    if (name === 'job_list') return list(jobs, context);
    if (name === 'job_output') return await output(jobs, parse(outputSchema, raw), context);
    const args = parse(killSchema, raw);
    const text = jobs.killText(args.job_id, context.sessionId, args.reason);
    return textResult(text, { jobId: args.job_id, job: jobs.get(args.job_id) });
  } catch (error) {
    return errorResult(error);
  }
}

function parse<T extends z.ZodType>(schema: T, input: object): z.output<T> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new ToolError(parsed.error.issues[0]!.message);
  return parsed.data;
}

async function output(
  jobs: JobRegistry,
  args: z.output<typeof outputSchema>,
  context: CallContext,
): Promise<ToolResult> {
  const job = jobs.lookup(args.job_id, context.sessionId);
  if (args.wait) await jobs.wait(job.id, Math.min(args.timeout_ms ?? DEFAULT_WAIT_MS, MAX_WAIT_MS), context.signal);
  const text = jobs.outputText(job.id);
  return textResult(text, { jobId: job.id, job: jobs.get(job.id) });
}

function list(jobs: JobRegistry, context: CallContext): ToolResult {
  const mine = jobs.list(context.sessionId).filter((job) => !job.foreground || job.state === 'running');
  const text = mine.length
    ? mine.map((job) => jobTexts.listLine(job.id, job.kind, job.state, job.label)).join('\n')
    : jobTexts.noJobs;
  return textResult(text, { jobs: mine.map((job) => ({ ...job, status: statusLine(job) })) });
}
