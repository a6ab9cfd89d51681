// Plugin registering the table's job tools (job_output, job_list, job_kill) and their prompt section over `jobs`.
import type { Context } from 'cordis';
import { pluginTools, registerPrompts, registerTools } from './table.js';
import './services.js';

export const name = 'tool-jobs';

export const inject = ['tools', 'jobs', 'systemPrompt'];

export function apply(ctx: Context): void {
  const specs = pluginTools('tool-jobs');
  // `jobs` is required: a new registry restarts this plugin, so capturing it here never goes stale.
  const jobs = ctx.jobs;
  ctx.effect(() => registerTools(ctx, specs, { jobs }));
  registerPrompts(ctx, specs);
}
