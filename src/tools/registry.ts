// The one tool table: the runtime, both MCP faces and the Cordis plugins offer these, in this order. A new tool is
// a file of its own holding its ToolSpec, and one line here.
import { bashTool } from './bash-entry.js';
import { jobKillTool, jobListTool, jobOutputTool } from './job-tools.js';
import { jobInputTool } from './job-input.js';
import { sessionOpenTool } from './session-open.js';
import type { ToolSpec } from './spec.js';

export const TOOLS: readonly ToolSpec[] = [
  bashTool,
  jobOutputTool,
  jobListTool,
  jobKillTool,
  jobInputTool,
  sessionOpenTool,
];
