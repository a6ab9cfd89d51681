// job_output, job_list and job_kill: the model's controls over its own background jobs, one registry entry each.
import { z } from 'zod';
import type { JobRegistry } from '../jobs/registry.js';
import { jobErrors, jobsPrompt, jobTexts, jobToolDocs, statusLine, terminalTexts, toolTitles, typableLine, waitingLine, type JobLimits } from '../contract/index.js';
import { errorResult, textResult, type CallContext, type ToolDefinition, type ToolResult } from './tool.js';
import { knownArgs } from './plain-args.js';
import type { ToolAnnotations, ToolSpec } from './spec.js';
import { jobKillSchema, jobListSchema, jobOutputSchema } from './output-schemas.js';
import { ShellringError } from '../errors.js';

export const jobId = z
  .string({ error: (issue) => jobErrors.invalidId(issue.input) })
  .refine((value) => value.trim() !== '', { error: (issue) => jobErrors.invalidId(issue.input) })
  .describe(jobToolDocs.jobId);

const positive = (field: string) => (issue: { input?: unknown }) => jobErrors.positive(field, issue.input);

/** job_output's arguments, their wait stated with the registry's configured figures. */
const outputArgs = (limits: JobLimits) =>
  z.strictObject({
    job_id: jobId,
    wait: z
      .boolean({ error: (issue) => jobErrors.type('wait', 'a boolean', issue.input) })
      .optional()
      .describe(jobToolDocs.wait),
    timeout_ms: z
      .number({ error: positive('timeout_ms') })
      .positive({ error: positive('timeout_ms') })
      .optional()
      .describe(jobToolDocs.timeoutMs(limits)),
  });

const listSchema = z.strictObject({});

const killSchema = z.strictObject({
  job_id: jobId,
  reason: z.string({ error: (issue) => jobErrors.type('reason', 'a string', issue.input) }).optional().describe(jobToolDocs.reason),
});

/** The argument schemas, whose inputs are the public argument types (tool-types.ts). */
export type JobOutputArgsSchema = ReturnType<typeof outputArgs>;
export type JobListArgsSchema = typeof listSchema;
export type JobKillArgsSchema = typeof killSchema;

/** A job tool: one definition per registry, called against it. */
export function jobTool(
  name: string,
  annotations: ToolAnnotations,
  define: (limits: JobLimits) => Omit<ToolDefinition, 'name' | 'outputSchema'> & { schema: z.ZodObject },
  outputSchema: z.ZodType,
  run: (jobs: JobRegistry, args: never, context: CallContext) => ToolResult | Promise<ToolResult>,
): ToolSpec {
  return {
    name,
    annotations,
    needs: ['jobs'],
    // Shared by the three job tools: the prompt shows it once.
    prompt: ({ notices }) => ({ name: 'tool:jobs', order: 1010, text: jobsPrompt(notices) }),
    build: ({ jobs }) => {
      const { description, schema } = define(jobs!.limits);
      const definition: ToolDefinition = { name, description, schema, outputSchema };
      return {
        definitionFor: () => definition,
        async call(input, context) {
          try {
            const raw = knownArgs(name, input, Object.keys(schema.shape), Object.keys(schema.shape));
            const parsed = schema.safeParse(raw);
            if (!parsed.success) throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', parsed.error.issues[0]!.message);
            return await run(jobs!, parsed.data as never, context);
          } catch (error) {
            return errorResult(error);
          }
        },
      };
    },
  };
}

// Reading moves the model's own cursor and nothing else; a second read returns only newer output.
export const jobOutputTool = jobTool(
  'job_output',
  { title: toolTitles.jobOutput, readOnlyHint: true, idempotentHint: false, openWorldHint: false },
  (limits) => ({ description: jobToolDocs.jobOutput, schema: outputArgs(limits) }),
  jobOutputSchema,
  (jobs, args: z.output<ReturnType<typeof outputArgs>>, context) => output(jobs, args, context),
);

export const jobListTool = jobTool(
  'job_list',
  { title: toolTitles.jobList, readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  () => ({ description: jobToolDocs.jobList, schema: listSchema }),
  jobListSchema,
  (jobs, _args, context) => list(jobs, context),
);

// Killing stops a running command for good; killing it again changes nothing more.
export const jobKillTool = jobTool(
  'job_kill',
  { title: toolTitles.jobKill, readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  () => ({ description: jobToolDocs.jobKill, schema: killSchema }),
  jobKillSchema,
  (jobs, args: z.output<typeof killSchema>, context) => {
    const text = jobs.killText(args.job_id, context.sessionId, args.reason);
    return textResult(text, { jobId: args.job_id, job: jobs.get(args.job_id) });
  },
);

async function output(jobs: JobRegistry, args: z.output<ReturnType<typeof outputArgs>>, context: CallContext): Promise<ToolResult> {
  const job = jobs.lookup(args.job_id, context.sessionId);
  const { waitMs: defaultMs, maxWaitMs } = jobs.limits;
  const asked = args.wait ? args.timeout_ms : undefined;
  const waitMs = Math.min(asked ?? defaultMs, maxWaitMs);
  const expired = args.wait ? !(await jobs.wait(job.id, waitMs, context.signal)) && !context.signal?.aborted : false;
  const capped = asked !== undefined && asked > maxWaitMs ? jobTexts.waitCapped(asked, maxWaitMs) : undefined;
  const { text, unreadBytes } = jobs.output(job.id, expired ? waitMs : undefined, capped);
  const screen = await fullScreen(jobs, job.id);
  // A terminal job found reading its terminal says so, as job_list does; the screen and that line go before the
  // status line, which stays last.
  const before = [screen, typableLine(jobs.get(job.id)?.waiting)].filter((line) => line !== undefined);
  const shown = before.length ? text.replace(/[^\n]*$/, (status) => `${before.join('\n')}\n${status}`) : text;
  return textResult(shown, { jobId: job.id, job: jobs.get(job.id), unreadBytes });
}

/** A running terminal job's screen while a full-screen program draws it on the alternate screen (an editor, a
 * pager), where the byte stream alone does not say what shows; else nothing. */
async function fullScreen(jobs: JobRegistry, id: string): Promise<string | undefined> {
  const terminal = jobs.terminal(id);
  if (!terminal?.tty || jobs.get(id)?.state !== 'running') return undefined;
  const screen = await terminal.screen(jobs.inputTiming.silentMs);
  if (!screen?.alternate) return undefined;
  const head = terminalTexts.screen(screen.cols, screen.rows, screen.cursorRow, screen.cursorCol);
  let rows = screen.lines;
  while (rows.length > 0 && rows.at(-1) === '') rows = rows.slice(0, -1);
  return [head, ...rows, terminalTexts.screenEnd].join('\n');
}

function list(jobs: JobRegistry, context: CallContext): ToolResult {
  const mine = jobs.list(context.sessionId).filter((job) => !job.foreground || job.state === 'running');
  const text = mine.length
    ? mine.map((job) => jobTexts.listLine(job.id, job.kind, job.state, job.label) + (job.waiting ? ` ${waitingLine(job.waiting)}` : '')).join('\n')
    : jobTexts.noJobs;
  return textResult(text, { jobs: mine.map((job) => ({ ...job, status: statusLine(job) })) });
}
