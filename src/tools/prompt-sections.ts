// Prompt sections and their one order: by `order`, then by name, each name once, whoever assembles them; and the
// sandbox section every face ends its prompt with where commands are confined.
import { SANDBOX_CONTEXT_SECTION, sandboxContext } from '../contract/index.js';
import type { SandboxMode } from '../sandbox/modes.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { reachable } from '../sandbox/network-config.js';

export interface PromptSection {
  name: string;
  order: number;
  text: string;
}

/** Copies in prompt order; a later section under a name already taken is dropped (tools may share one). */
export function orderSections(sections: readonly PromptSection[]): PromptSection[] {
  const seen = new Set<string>();
  return sections
    .filter((section) => !seen.has(section.name) && Boolean(seen.add(section.name)))
    .map((section) => ({ ...section }))
    .sort((a, b) => a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The standing sandbox mode and what commands can write and read, as runtime context after the fixed sections;
 * `workspace` absent where every session has its own (a Cordis composition's one prompt). */
export function sandboxSection(
  sandbox: Pick<Sandbox, 'readView' | 'networkFor'>,
  mode: SandboxMode,
  workspace: string | undefined,
  sessionId?: string,
): PromptSection {
  const network = sandbox.networkFor(sessionId);
  const reach = typeof network === 'object' ? { reach: reachable(network), asks: network.ask } : {};
  return { ...SANDBOX_CONTEXT_SECTION, text: sandboxContext({ mode, workspace, read: sandbox.readView, ...reach }) };
}
