// Plugin providing the `jobs` service: the job registry over the executor's capture backend.
import type { Context } from 'cordis';
import type Schema from 'schemastery';
import { jobOptionsSchema, type JobRegistryOptions } from '../jobs/options.js';
import { assembleJobs } from '../runtime/assembly.js';
import { fromZod } from './from-zod.js';
import './services.js';
import { closeOnDispose } from './teardown.js';

export const name = 'jobs-local';

/** The executor owns the capture backend every job's output lives in. */
export const inject = ['shell'];

export const Config: Schema<JobRegistryOptions> = fromZod(jobOptionsSchema);

export function apply(ctx: Context, config: JobRegistryOptions): void {
  const registry = assembleJobs(ctx.shell, config);
  registry.onNotice((notice) => ctx.emit('jobs/notice', notice));
  // Withdrawn before the close below: consumers swap away from a registry that is about to stop.
  ctx.set('jobs', registry);
  closeOnDispose(ctx, () => registry.close());
}
