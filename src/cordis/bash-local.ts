// Plugin providing the `shell` service: the local executor (no sandbox), closed with its plugin.
import type { Context } from 'cordis';
import Schema from 'schemastery';
import { LocalExecutor } from '../executor/local.js';
import type { ExecutorConfigInput } from '../executor/config.js';
import './services.js';
import { closeOnDispose } from './teardown.js';

export const name = 'bash-local';

// No defaults here: the executor's own schema fills them and checks ranges, so they live in one place.
export const Config: Schema<ExecutorConfigInput> = Schema.object({
  cwd: Schema.string().description('Working directory when a call names none (default: the host working directory).'),
  timeoutMs: Schema.natural().min(1).description('Default command timeout in milliseconds (120000).'),
  maxTimeoutMs: Schema.natural().min(1).description('Largest timeout a call may ask for (600000).'),
  maxOutputBytes: Schema.natural().description('Tail kept in memory per stream, in bytes (64000).'),
  maxSpillBytes: Schema.natural().description('Largest spill file per stream, in bytes (2 GiB).'),
  graceMs: Schema.natural().description('Between SIGTERM and SIGKILL, in milliseconds (3000).'),
  drainMs: Schema.natural().description('How long pipes held by a descendant may stay open after the command ended (250).'),
  threads: Schema.natural().min(1).max(64).description('Supervisor worker threads (2).'),
  spillRoot: Schema.string().description('Where the private spill directory is created (default: the OS temporary directory).'),
  sessionSpillQuota: Schema.natural().description('Spill bytes one session may hold on disk (4 GiB).'),
  keepSpills: Schema.boolean().description('Keep spill files after their session closes (false).'),
  env: Schema.object({
    inherit: Schema.union([Schema.const('all'), Schema.const('core'), Schema.const('none')]).description(
      'Host variables to start from (all).',
    ),
    ignoreDefaultExcludes: Schema.boolean().description('Let credential-looking variables and agent sockets through (false).'),
    exclude: Schema.array(Schema.string()).description('Globs of variable names to drop.'),
    includeOnly: Schema.array(Schema.string()).description('When given, only names matching these globs pass.'),
    set: Schema.dict(Schema.string()).description('Variables set for every command.'),
  }).description('Which host environment variables commands inherit (see docs/environment.md).'),
  limits: Schema.object({
    processes: Schema.union([Schema.natural().min(1), Schema.const(null)]).description('Processes per session (1024).'),
    memoryBytes: Schema.union([Schema.natural().min(1), Schema.const(null)]).description('Memory per session, cgroups only (none).'),
    cpuWeight: Schema.union([Schema.natural().min(1).max(10000), Schema.const(null)]).description('CPU weight, cgroup v2 only.'),
  }).description('Per-session resource limits.'),
});

export function apply(ctx: Context, config: ExecutorConfigInput): void {
  const executor = new LocalExecutor(config);
  ctx.set('shell', executor);
  closeOnDispose(ctx, () => executor.close());
}
