// Small drivers for tests that use the runtime as an outside caller would: result text, job ids, waits, notices.
import type { JobInfo, Notice, Runtime, Session, ToolResult } from '../../src/index.js';
import { until } from './until.js';

export { until };

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

/**
 * Follows job settlements from the moment it is called. A job's completion notice is decided in the same turn as
 * its `settled` event, so once `settled()` resolves, a notice that was due has been delivered and one that was
 * not never will be: absence can be checked at once, without a sleep.
 */
export function watchJobs(runtime: Runtime): { settled(match?: (job: JobInfo) => boolean, timeoutMs?: number): Promise<void> } {
  const registered: JobInfo[] = [];
  const done = new Set<string>();
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of waiters) waiter();
  };
  runtime.jobs!.on('registered', ({ job }) => void registered.push(job));
  runtime.jobs!.on('settled', ({ job }) => {
    done.add(job.id);
    wake();
  });
  return {
    /** Resolves once every job registered since the watch began (or those `match` selects) has settled. */
    settled(match = () => true, timeoutMs = 15_000) {
      const pending = () => registered.filter((job) => match(job) && !done.has(job.id));
      if (pending().length === 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`timed out after ${timeoutMs}ms waiting for ${pending().map((job) => job.id).join(', ')} to settle`));
        }, timeoutMs);
        const waiter = () => {
          if (pending().length > 0) return;
          waiters.delete(waiter);
          clearTimeout(timer);
          resolve();
        };
        waiters.add(waiter);
      });
    },
  };
}
