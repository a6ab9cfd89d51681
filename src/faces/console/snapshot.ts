// What the page shows besides output: sessions, every job with its bytes, and pending approvals, as one JSON value.
import type { Runtime } from '../../runtime/runtime.js';
import type { ConsoleApprovals } from './approvals.js';
import type { Timeline } from './timeline.js';
import { waitingLine } from '../../contract/index.js';

export interface SessionRow {
  id: string;
  /** The name people know it by: its MCP client's, or the library's session label. */
  label?: string;
  cwd: string;
  /** The standing sandbox mode, or `unconfined` when the runtime has no sandbox. */
  mode: string;
  liveJobs: number;
  /** Approvals its calls wait for: in this console, or asked of its client's user (MCP 2026-07-28 round trips). */
  approvals: number;
  lastActivity?: number;
}

export interface JobRow {
  id: string;
  kind: string;
  label: string;
  sessionId: string;
  state: string;
  detail?: string;
  killReason?: string;
  /** What its silent command waits for, as the model reads it. */
  waiting?: string;
  startedAt: number;
  settledAt?: number;
  bytes: number;
  /** A tool call is still waiting on this job. */
  waited: boolean;
  /** Its command runs on a terminal: the panel shows the screen and takes typing. */
  terminal?: true;
  /** The approved escalation its command runs under. */
  escalation?: string;
  callId?: string;
  command: string;
}

export interface ApprovalRow {
  id: string;
  sessionId: string;
  /** The tool call that waits for it, when known. */
  callId?: string;
  reason: string;
  requestedAt: number;
  command?: string;
  cwd?: string;
  mode?: string;
  justification?: string;
  kind: 'escalation' | 'command' | 'network';
  subcommand?: string;
  rule?: string;
  message?: string;
  alwaysPrefix?: string[];
  host?: string;
  port?: number;
}

export interface Snapshot {
  now: number;
  sandboxed: boolean;
  modes: string[];
  sessions: SessionRow[];
  jobs: JobRow[];
  approvals: ApprovalRow[];
}

export function snapshot(runtime: Runtime, timeline: Timeline, approvals: ConsoleApprovals | undefined): Snapshot {
  const sessions = runtime.sessions();
  timeline.prune(new Set(sessions.map((session) => session.id)));
  const jobs: JobRow[] = (runtime.jobs?.list() ?? []).map((job) => {
    const card = job.callId ? timeline.card(job.ownerId, job.callId) : undefined;
    return {
      id: job.id,
      kind: job.kind,
      // The person's view names a job by the call's description; its command stays one hover away.
      label: job.description ?? job.label,
      sessionId: job.ownerId,
      state: job.state,
      ...(job.detail !== undefined ? { detail: job.detail } : {}),
      ...(job.killReason !== undefined ? { killReason: job.killReason } : {}),
      ...(job.waiting !== undefined ? { waiting: waitingLine(job.waiting) } : {}),
      startedAt: job.startedAt,
      ...(job.settledAt !== undefined ? { settledAt: job.settledAt } : {}),
      bytes: bytesOf(runtime, job.id),
      waited: job.foreground && (job.state === 'running' || job.state === 'stopping'),
      ...(runtime.jobs?.hasTerminal(job.id) ? { terminal: true as const } : {}),
      ...(job.escalation !== undefined ? { escalation: job.escalation } : {}),
      ...(job.callId !== undefined ? { callId: job.callId } : {}),
      command: card?.command ?? job.label,
    };
  });
  const live = new Map<string, number>();
  for (const job of jobs) {
    if (job.state === 'running' || job.state === 'stopping') live.set(job.sessionId, (live.get(job.sessionId) ?? 0) + 1);
  }
  const pending = approvals?.pending() ?? [];
  const asking = new Map<string, number>();
  for (const entry of pending) asking.set(entry.sessionId, (asking.get(entry.sessionId) ?? 0) + 1);
  return {
    now: Date.now(),
    sandboxed: runtime.sandbox !== undefined,
    modes: runtime.sandbox ? [...runtime.sandbox.modes] : [],
    sessions: sessions.map((session) => ({
      id: session.id,
      ...(session.label !== undefined ? { label: session.label } : {}),
      cwd: session.cwd,
      mode: runtime.sandbox?.modeFor(session.id) ?? 'unconfined',
      liveJobs: live.get(session.id) ?? 0,
      approvals: (asking.get(session.id) ?? 0) + timeline.awaiting(session.id),
      ...(timeline.lastActivity(session.id) !== undefined ? { lastActivity: timeline.lastActivity(session.id) } : {}),
    })),
    jobs,
    approvals: pending.map((entry) => {
      const card = entry.callId ? timeline.card(entry.sessionId, entry.callId) : undefined;
      const command = entry.command ?? card?.command;
      const cwd = entry.cwd ?? card?.cwd;
      return {
        id: entry.id,
        sessionId: entry.sessionId,
        ...(entry.callId !== undefined ? { callId: entry.callId } : {}),
        kind: entry.kind,
        reason: entry.reason,
        requestedAt: entry.requestedAt,
        ...(command !== undefined ? { command } : {}),
        ...(cwd !== undefined ? { cwd } : {}),
        ...(entry.kind === 'escalation' && card?.escalation ? { mode: card.escalation.mode, justification: card.escalation.justification } : {}),
        ...(entry.subcommand !== undefined ? { subcommand: entry.subcommand, message: entry.message } : {}),
        ...(entry.rule !== undefined ? { rule: entry.rule } : {}),
        ...(entry.alwaysPrefix ? { alwaysPrefix: entry.alwaysPrefix } : {}),
        ...(entry.host !== undefined ? { host: entry.host, port: entry.port } : {}),
      };
    }),
  };
}

/** Every byte the job has written: an observer read from past the end returns the total and copies nothing. */
function bytesOf(runtime: Runtime, jobId: string): number {
  try {
    return runtime.jobs!.follow(jobId, Number.MAX_SAFE_INTEGER, 0).total;
  } catch {
    return 0;
  }
}
