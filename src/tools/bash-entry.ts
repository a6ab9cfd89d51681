// The bash tool's registry entry: its annotations and prompt section, built as a BashTool over the composition.
import { BASH_PROMPT, policyPrompt, toolTitles } from '../contract/index.js';
import { BashTool } from './bash.js';
import { bashToolConfigSchema } from './bash-config.js';
import type { ToolSpec } from './spec.js';

const BASH_SECTION = { name: 'tool:bash', order: 1000, text: BASH_PROMPT };

export const bashTool: ToolSpec = {
  name: 'bash',
  // Any command can write, delete or reach the network, and running it twice may differ.
  annotations: { title: toolTitles.bash, readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  // The operator's command policy is told with the tool it governs.
  prompt: ({ policy }) => {
    const told = policy && policyPrompt({ defaultDecision: policy.default ?? 'allow', rules: policy.rules });
    return told ? { ...BASH_SECTION, text: `${BASH_SECTION.text}\n${told}` } : BASH_SECTION;
  },
  needs: ['executor', 'env'],
  build: (services) =>
    new BashTool({ ...services, executor: services.executor!, env: services.env!, config: services.config ?? bashToolConfigSchema.parse({}) }),
};
