// The tool table as the Cordis plugins offer it: which entries each tool plugin registers, and their registration
// with the `tools` and `systemPrompt` services.
import type { Context } from 'cordis';
import { TOOLS } from '../tools/registry.js';
import { orderSections } from '../tools/prompt-sections.js';
import { provides, type ToolServices, type ToolSpec } from '../tools/spec.js';
import './services.js';

export type ToolPlugin = 'tool-bash' | 'tool-jobs';

/**
 * tool-jobs, which requires the `jobs` service, registers the entries that need it; tool-bash every other entry that
 * every face offers. A new entry lands in one of them by what it needs.
 */
export function pluginTools(plugin: ToolPlugin, table: readonly ToolSpec[] = TOOLS): ToolSpec[] {
  return table.filter((spec) => spec.only === undefined && spec.needs.includes('jobs') === (plugin === 'tool-jobs'));
}

/** Registers the prompt sections of `specs` (a section several share, once) for as long as the plugin is active. A
 * host delivers completion notices (the `jobs/notice` event), so the sections promise them. */
export function registerPrompts(ctx: Context, specs: readonly ToolSpec[]): void {
  for (const section of orderSections(specs.flatMap((spec) => spec.prompt?.({ notices: true }) ?? []))) {
    ctx.effect(() => ctx.systemPrompt.register(section));
  }
}

/** Builds and registers `specs` over `services`; the returned function removes exactly these registrations. */
export function registerTools(ctx: Context, specs: readonly ToolSpec[], services: ToolServices): () => void {
  const removals = specs
    .filter((spec) => provides(services, spec))
    .map((spec) => {
      const tool = spec.build(services);
      return ctx.tools.register({ definition: tool.definitionFor({}), call: (input, context) => tool.call(input, context) });
    });
  return () => {
    for (const remove of removals) remove();
  };
}
