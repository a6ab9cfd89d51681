// Pure, replay-safe presentation of bash calls and results for a UI: terminal cards and console blocks.
import { isAbsolute, resolve } from 'node:path';
import { foregroundExit } from '../contract/index.js';
import type { ToolResult } from './tool.js';

export type CallCard =
  | { type: 'terminal'; title: string; description?: string; cwd?: string }
  | { type: 'generic'; title: string; description?: string };

export type ResultCard =
  | { type: 'terminal'; output: string; exitCode: number | null }
  | { type: 'terminal'; output: string; signal: string }
  | { type: 'console'; text: string };

/**
 * The card of a call. Given the session's directory, `cwd` is the resolved working directory, with or without a
 * `workdir`; without it, only an absolute `workdir` can be named.
 */
export function presentCall(
  input: { command?: unknown; description?: unknown; workdir?: unknown; run_in_background?: unknown } | null | undefined,
  context: { cwd?: string } = {},
): CallCard {
  const args = input !== null && typeof input === 'object' ? input : {};
  const title = typeof args.command === 'string' ? args.command : '';
  const description = typeof args.description === 'string' ? args.description : undefined;
  if (args.run_in_background === true) return { type: 'generic', title, description };
  const workdir = typeof args.workdir === 'string' && args.workdir !== '' ? args.workdir : undefined;
  const base = typeof context?.cwd === 'string' && isAbsolute(context.cwd) ? context.cwd : undefined;
  const cwd = base ? resolve(base, workdir ?? '.') : workdir !== undefined && isAbsolute(workdir) ? resolve(workdir) : workdir;
  return { type: 'terminal', title, description, ...(cwd ? { cwd } : {}) };
}

export function presentResult(result: ToolResult): ResultCard {
  const text = result.content.map((part) => part.text).join('');
  const facts = result.structuredContent;
  if (result.isError || facts?.kind !== 'foreground') return { type: 'console', text: fence(text) };
  return { type: 'terminal', ...foregroundExit(text, facts) };
}

/** A fenced block whose fence is longer than any backtick run inside, so the text cannot close it. */
function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}console\n${text}\n${ticks}`;
}
