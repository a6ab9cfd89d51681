// The bash tool plugin: registers the table's tools that need no job registry (`bash`) and their prompt sections,
// job-backed while a `jobs` service exists.
import type { Context } from 'cordis';
import type Schema from 'schemastery';
import type { JobRegistry } from '../jobs/registry.js';
import { bashToolConfigSchema, type BashToolConfig } from '../tools/bash-config.js';
import { pluginTools, registerPrompts, registerTools } from './table.js';
import { sandboxSection } from '../tools/prompt-sections.js';
import { fromZod } from './from-zod.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { ApprovalConfig } from '../sandbox/approval.js';
import { askAboutHost } from '../sandbox/network-asks.js';
import './services.js';

export const name = 'tool-bash';

export const inject = {
  required: ['tools', 'shell', 'systemPrompt', 'shellEnv'],
  optional: ['jobs', 'sandboxPolicy', 'approval'],
};

export interface Config extends BashToolConfig {}

export const Config: Schema<Config> = fromZod(bashToolConfigSchema);

export function apply(ctx: Context, config: Config): void {
  const specs = pluginTools('tool-bash');
  registerPrompts(ctx, specs);

  // A required service change restarts this plugin; the optional ones are followed here.
  let mounted: { key: unknown[]; unregister: () => void } | undefined;
  const mount = () => {
    const jobs: JobRegistry | undefined = ctx.get('jobs') ?? undefined;
    const sandbox: Sandbox | undefined = ctx.get('sandboxPolicy') ?? undefined;
    const approval: ApprovalConfig | undefined = ctx.get('approval') ?? undefined;
    const key = [jobs, sandbox, approval];
    if (mounted?.key.every((service, i) => service === key[i])) return;
    mounted?.unregister();
    mounted = undefined;
    // A built tool fixes its registry and schema, so each swap builds anew (cheap: one schema).
    const unregister = registerTools(ctx, specs, { executor: ctx.shell, env: ctx.shellEnv, jobs, sandbox, approval, config });
    // A host the domain network policy does not list is put to the host's approval service, where there is one.
    sandbox?.onNetworkAsk((sessionId, host, port, signal) => askAboutHost(undefined, approval, { sessionId, host, port, signal }));
    // Confined commands: the prompt ends with the standing mode and what commands can write and read, as the
    // library's and MCP faces' do (each session has its own working directory, so the section names it so).
    const unprompt = sandbox ? ctx.systemPrompt.register(sandboxSection(sandbox, sandbox.defaultMode, undefined)) : () => {};
    mounted = {
      key,
      unregister: () => {
        unregister();
        unprompt();
      },
    };
  };
  ctx.effect(() => {
    mount();
    return () => {
      mounted?.unregister();
      mounted = undefined;
    };
  });
  ctx.on('internal/service', (service) => {
    if (service === 'jobs' || service === 'sandboxPolicy' || service === 'approval') mount();
  });
}
