// One word for how a tool call ended, shared by the logs and the metrics, read from the structured result.
import type { ToolResult } from '../../tools/tool.js';

export type Outcome = 'ok' | 'exit-nonzero' | 'signal' | 'timeout' | 'aborted' | 'stopped' | 'background' | 'promoted' | 'error';

export function outcomeOf(result: ToolResult): { outcome: Outcome; exitCode?: number | null } {
  if (result.isError) return { outcome: 'error' };
  const value = result.structuredContent as
    | { kind?: string; exitCode?: number | null; signal?: string | null; timedOut?: boolean; aborted?: boolean; stopped?: string }
    | undefined;
  if (value?.kind === 'background') return { outcome: 'background' };
  if (value?.kind === 'promoted') return { outcome: 'promoted' };
  if (value?.kind !== 'foreground') return { outcome: 'ok' };
  const exitCode = value.exitCode ?? null;
  if (value.timedOut) return { outcome: 'timeout', exitCode };
  if (value.aborted) return { outcome: 'aborted', exitCode };
  if (value.stopped !== undefined) return { outcome: 'stopped', exitCode };
  if (exitCode === null) return { outcome: 'signal', exitCode };
  return { outcome: exitCode === 0 ? 'ok' : 'exit-nonzero', exitCode };
}
