// MCP tool annotations: what each runtime tool may do to the world, stated honestly for clients that gate on them.
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';

export const TOOL_ANNOTATIONS: Readonly<Record<string, ToolAnnotations>> = {
  // Any command can write, delete or reach the network, and running it twice may differ.
  bash: {
    title: 'Run a bash command',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
  // Reading moves the model's own cursor and nothing else; a second read returns only newer output.
  job_output: {
    title: 'Read background job output',
    readOnlyHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
  job_list: {
    title: 'List background jobs',
    readOnlyHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  // Killing stops a running command for good; killing it again changes nothing more.
  job_kill: {
    title: 'Stop a background job',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
};
