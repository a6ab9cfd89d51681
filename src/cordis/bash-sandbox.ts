// Plugin providing the sandboxing executor: `shell` (the local executor) plus `sandboxPolicy` that confines every call.
import type { Context } from 'cordis';
import Schema from 'schemastery';
import { LocalExecutor } from '../executor/local.js';
import type { ExecutorConfigInput } from '../executor/config.js';
import { resolveDshHome } from '../env/dsh-home.js';
import { SANDBOX_MODES, type SandboxMode } from '../sandbox/modes.js';
import { Sandbox } from '../sandbox/sandbox.js';
import { Config as LocalConfig } from './bash-local.js';
import './services.js';
import { closeOnDispose } from './teardown.js';

export const name = 'bash-sandbox';

export interface SandboxPluginConfig {
  mode: SandboxMode;
  backend: 'landlock' | 'bubblewrap';
  network: 'allow' | 'deny';
  bwrapPath: string;
}

export type Config = ExecutorConfigInput & SandboxPluginConfig;

export const Config: Schema<Config> = Schema.intersect([
  Schema.object({
    mode: Schema.union(SANDBOX_MODES.map((mode) => Schema.const(mode)))
      .default('read-only')
      .description('The standing sandbox mode of every session.'),
    backend: Schema.union([Schema.const('landlock'), Schema.const('bubblewrap')])
      .default('landlock')
      .description('Landlock (through shellring-runner) or bubblewrap.'),
    network: Schema.union([Schema.const('allow'), Schema.const('deny')])
      .default('allow')
      .description('Modes govern file writes; deny also blocks TCP where the kernel can.'),
    bwrapPath: Schema.string().default('bwrap').description('The bubblewrap executable.'),
  }),
  LocalConfig,
]) as Schema<Config>;

export function apply(ctx: Context, config: Config): void {
  const { mode, backend, network, bwrapPath, ...executorConfig } = config;
  const executor = new LocalExecutor(executorConfig);
  const sandbox = new Sandbox(
    { mode, backend, network, bwrapPath },
    executor.runnerPath,
    [executor.spills.root, resolveDshHome()],
    [executor.spills.root],
  );
  ctx.set('shell', executor);
  ctx.set('sandboxPolicy', sandbox);
  closeOnDispose(ctx, async () => {
    await executor.close();
    sandbox.close();
  });
}
