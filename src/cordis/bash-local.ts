// Plugin providing the `shell` service: the local executor (no sandbox), closed with its plugin.
import type { Context } from 'cordis';
import type Schema from 'schemastery';
import { executorConfigSchema, type ExecutorConfigInput } from '../executor/config.js';
import { assembleExecutor } from '../runtime/assembly.js';
import { fromZod } from './from-zod.js';
import './services.js';
import { closeOnDispose } from './teardown.js';

export const name = 'bash-local';

export const Config: Schema<ExecutorConfigInput> = fromZod(executorConfigSchema);

export function apply(ctx: Context, config: ExecutorConfigInput): void {
  const executor = assembleExecutor(config);
  ctx.set('shell', executor);
  closeOnDispose(ctx, () => executor.close());
}
