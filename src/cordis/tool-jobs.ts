// Plugin registering job_output, job_list and job_kill (and their prompt section) over the `jobs` service.
import type { Context } from 'cordis';
import { PROMPT_SECTIONS } from '../runtime/assembly.js';
import { callJobTool, jobToolDefinitions } from '../tools/job-tools.js';
import './services.js';

export const name = 'tool-jobs';

export const inject = ['tools', 'jobs', 'systemPrompt'];

export function apply(ctx: Context): void {
  // `jobs` is required: a new registry restarts this plugin, so capturing it here never goes stale.
  const jobs = ctx.jobs;
  for (const definition of jobToolDefinitions()) {
    ctx.effect(() =>
      ctx.tools.register({ definition, call: (input, context) => callJobTool(jobs, definition.name, input, context) }),
    );
  }
  ctx.effect(() => ctx.systemPrompt.register(PROMPT_SECTIONS.jobs));
}
