// Plugin providing the `jobs` service: the job registry over the executor's capture backend.
import type { Context } from 'cordis';
import Schema from 'schemastery';
import { JobRegistry, type JobRegistryOptions } from '../jobs/registry.js';
import './services.js';
import { closeOnDispose } from './teardown.js';

export const name = 'jobs-local';

/** The executor owns the capture backend every job's output lives in. */
export const inject = ['shell'];

export const Config: Schema<JobRegistryOptions> = Schema.object({
  maxJobsPerOwner: Schema.natural().min(1).description('Running-or-stopping jobs one session may hold (10).'),
  maxSettledPerOwner: Schema.natural().description('Finished jobs kept per session; the oldest go first (20).'),
  readBytes: Schema.natural().min(1).description('Most bytes one job_output read returns (64000).'),
  pollMs: Schema.natural().min(1).description('How often live jobs are checked for new output, in milliseconds (100).'),
});

export function apply(ctx: Context, config: JobRegistryOptions): void {
  const registry = new JobRegistry(ctx.shell.capture, config);
  registry.onNotice((notice) => ctx.emit('jobs/notice', notice));
  // Withdrawn before the close below: consumers swap away from a registry that is about to stop.
  ctx.set('jobs', registry);
  closeOnDispose(ctx, () => registry.close());
}
