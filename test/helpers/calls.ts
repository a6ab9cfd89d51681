// Small drivers for tests that use the runtime as an outside caller would: result text, job ids, waits, notices.
import type { Notice, Runtime, Session, ToolResult } from '../../src/index.js';

/** The model-facing text of a tool result. */
export function text(result: ToolResult): string {
  return result.content.map((part) => part.text).join('');
}

/** The id in `started background job <id>` or in a promotion hand-off. */
export function jobIdOf(result: ToolResult): string {
  const match = /(?:started background job|moved to background job) (\S+?)\]?$/m.exec(text(result));
  if (!match) throw new Error(`no job id in ${JSON.stringify(text(result))}`);
  return match[1]!;
}

export async function bash(session: Session, command: string, extra: Record<string, unknown> = {}): Promise<ToolResult> {
  return session.callTool('bash', { command, description: 'run a test command', ...extra });
}

/** Starts a background job and returns its id. */
export async function background(session: Session, command: string, description = 'run a background job'): Promise<string> {
  const result = await session.callTool('bash', { command, description, run_in_background: true });
  if (result.isError) throw new Error(text(result));
  return jobIdOf(result);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it is truthy, or fails after `timeoutMs`. */
export async function until<T>(check: () => T | Promise<T>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** Resolves once the job has settled (from the runtime's observer API, which never moves the model's cursor). */
export function settledJob(runtime: Runtime, jobId: string, timeoutMs = 15_000): Promise<void> {
  return until(
    () => {
      const job = runtime.jobs!.list().find((j) => j.id === jobId);
      return job === undefined || ['completed', 'killed', 'failed'].includes(job.state);
    },
    timeoutMs,
    `job ${jobId} to settle`,
  ).then(() => undefined);
}

/** Collects the runtime's completion notices. */
export function collectNotices(runtime: Runtime): Notice[] {
  const notices: Notice[] = [];
  runtime.on('notice', (notice) => notices.push(notice));
  return notices;
}
