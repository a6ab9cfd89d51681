// The bash tool plugin: registers `bash` and its prompt section, job-backed while a `jobs` service exists.
import type { Context } from 'cordis';
import type Schema from 'schemastery';
import type { JobRegistry } from '../jobs/registry.js';
import { BashTool } from '../tools/bash.js';
import { bashToolConfigSchema, type BashToolConfig } from '../tools/bash-config.js';
import { PROMPT_SECTIONS } from '../runtime/assembly.js';
import { fromZod } from './from-zod.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { ApprovalConfig } from '../sandbox/approval.js';
import './services.js';

export const name = 'tool-bash';

export const inject = {
  required: ['tools', 'shell', 'systemPrompt', 'shellEnv'],
  optional: ['jobs', 'sandboxPolicy', 'approval'],
};

export interface Config extends BashToolConfig {}

export const Config: Schema<Config> = fromZod(bashToolConfigSchema);

export function apply(ctx: Context, config: Config): void {
  ctx.effect(() => ctx.systemPrompt.register(PROMPT_SECTIONS.bash));

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
    // BashTool fixes its registry and schema when built, so each swap builds a new one (cheap: one schema).
    const tool = new BashTool({ executor: ctx.shell, env: ctx.shellEnv, jobs, sandbox, approval, config });
    const unregister = ctx.tools.register({ definition: tool.definition, call: (input, context) => tool.call(input, context) });
    mounted = { key, unregister };
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
