// A job as the registry keeps it: what starts one, its record, and the public view of it.
import type { JobInfo, JobSource, JobState } from './types.js';

export interface StartJob {
  kind: string;
  label: string;
  description?: string;
  ownerId: string;
  source: JobSource;
  /** A foreground call waits on it: it leaves without a trace if it settles before the call's timeout. */
  foreground?: boolean;
  /** The tool call that started it. */
  callId?: string;
  /** The mode of the approved escalation its command runs under. */
  escalation?: string;
}

export type KilledBy = 'owner' | 'person' | 'teardown';

export interface Job extends JobInfo {
  source: JobSource;
  killedBy?: KilledBy;
  waiters: number;
  silenced: boolean;
  total: number;
  /** The model has read the job since it settled (only its first such read may skip to the newest output). */
  readSettled: boolean;
}

export function settled(state: JobState): boolean {
  return state === 'completed' || state === 'killed' || state === 'failed';
}

export function info(job: Job): JobInfo {
  const { id, kind, label, description, ownerId, state, detail, killReason, startedAt, settledAt, foreground, callId, escalation, exitCode, signal } = job;
  const waiting = state === 'running' ? job.source.waiting?.() : undefined;
  return {
    ...(waiting !== undefined ? { waiting } : {}),
    id,
    kind,
    label,
    ...(description !== undefined ? { description } : {}),
    ownerId,
    state,
    detail,
    killReason,
    startedAt,
    settledAt,
    foreground,
    ...(callId !== undefined ? { callId } : {}),
    ...(escalation !== undefined ? { escalation } : {}),
    ...(exitCode !== undefined ? { exitCode } : {}),
    ...(signal !== undefined ? { signal } : {}),
  };
}
