// Plugin providing the sandboxing executor: `shell` (the local executor) plus `sandboxPolicy` that confines every call.
import type { Context } from 'cordis';
import Schema from 'schemastery';
import type { ExecutorConfigInput } from '../executor/config.js';
import { resolveDshHome } from '../env/dsh-home.js';
import { sandboxConfigSchema, type SandboxConfigInput } from '../sandbox/config.js';
import { assembleExecutor, assembleSandbox } from '../runtime/assembly.js';
import { Config as LocalConfig } from './bash-local.js';
import { fromZod } from './from-zod.js';
import './services.js';
import { closeOnDispose } from './teardown.js';

export const name = 'bash-sandbox';

export type Config = ExecutorConfigInput & SandboxConfigInput;

export const Config: Schema<Config> = Schema.intersect([
  fromZod<SandboxConfigInput>(sandboxConfigSchema),
  LocalConfig,
]) as Schema<Config>;

export function apply(ctx: Context, config: Config): void {
  const { mode, backend, network, allowUnixSockets, bwrapPath, read, readAllow, readDeny, ...executorConfig } = config;
  const executor = assembleExecutor(executorConfig);
  const sandboxConfig = { mode, backend, network, allowUnixSockets, bwrapPath, read, readAllow, readDeny };
  const sandbox = assembleSandbox(sandboxConfig, executor, resolveDshHome());
  ctx.set('shell', executor);
  ctx.set('sandboxPolicy', sandbox);
  closeOnDispose(ctx, async () => {
    await executor.close();
    await sandbox.close();
  });
}
