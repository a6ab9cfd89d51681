// Plugin providing the `shell` service: the local executor (no sandbox), closed with its plugin.
import type { Context } from 'cordis';
import type Schema from 'schemastery';
import { executorConfigSchema, type ExecutorConfigInput } from '../executor/config.js';
import { assembleExecutor } from '../runtime/assembly.js';
import { fromZod, type Descriptions } from './from-zod.js';
import './services.js';
import { closeOnDispose } from './teardown.js';

export const name = 'bash-local';

/** What a configuration screen says of each executor option; types, ranges and defaults come from the executor. */
export const executorDescriptions: Descriptions = {
  cwd: 'Working directory when a call names none (default: the host working directory).',
  timeoutMs: 'Default command timeout in milliseconds.',
  maxTimeoutMs: 'Largest timeout a call may ask for, in milliseconds.',
  maxOutputBytes: 'Tail kept in memory per stream, in bytes.',
  maxSpillBytes: 'Largest spill file per stream, in bytes.',
  graceMs: 'Between SIGTERM and SIGKILL, in milliseconds.',
  drainMs: 'How long pipes held by a descendant may stay open after the command ended, in milliseconds.',
  threads: 'Supervisor worker threads.',
  spillRoot: 'Where the private spill directory is created (default: the OS temporary directory).',
  sessionSpillQuota: 'Spill bytes one session may hold on disk.',
  runnerPath: 'The shellring-runner executable (default: the one shipped beside the native addon).',
  keepSpills: 'Keep spill files after their session closes.',
  env: 'Which host environment variables commands inherit (see docs/environment.md).',
  'env.inherit': 'Host variables to start from.',
  'env.ignoreDefaultExcludes': 'Let credential-looking variables and agent sockets through.',
  'env.exclude': 'Globs of variable names to drop.',
  'env.includeOnly': 'When given, only names matching these globs pass.',
  'env.set': 'Variables set for every command.',
  limits: 'Per-session resource limits.',
  'limits.processes': 'Processes per session (null: no limit).',
  'limits.memoryBytes': 'Memory per session, cgroups only (null: no limit).',
  'limits.cpuWeight': 'CPU weight, cgroup v2 only (null: the default).',
};

export const Config: Schema<ExecutorConfigInput> = fromZod(executorConfigSchema, executorDescriptions);

export function apply(ctx: Context, config: ExecutorConfigInput): void {
  const executor = assembleExecutor(config);
  ctx.set('shell', executor);
  closeOnDispose(ctx, () => executor.close());
}
