// Background jobs as tasks of the io.modelcontextprotocol/tasks extension: a task id names one job of one state;
// tasks/get reads the job's state, and once it has ended the result job_output gives; tasks/cancel is job_kill.
import { randomBytes } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Runtime } from '../../../runtime/runtime.js';
import type { ToolResult } from '../../../tools/tool.js';
import { appendLine, modernErrors, modernTexts, typableLine } from '../../../contract/index.js';
import type { ModernState } from './states.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** How often a client should poll a running job. */
const POLL_INTERVAL_MS = 1000;
/** The newest output a running task's status looks at for its newest line, and the longest line it shows. */
const NEWEST_BYTES = 4096;
const LINE_CHARS = 200;

interface TaskRecord {
  id: string;
  state: ModernState;
  jobId: string;
  /** The bash result that made it (`background` or `promoted`): the final result is one of the same tool's. */
  made: { kind: string; timeoutMs?: number };
  /** What the call showed before a promoted job was handed off; the final result starts with it. */
  before: string;
  createdAt: string;
  lastUpdatedAt: string;
  cancelled: boolean;
  /** The final result, read once when the job is first seen ended (job_output moves the read cursor). */
  result?: ToolResult;
}

export class TaskTable {
  readonly #tasks = new Map<string, TaskRecord>();
  readonly #runtime: Runtime;
  readonly #instanceId: string;

  constructor(runtime: Runtime, instanceId: string) {
    this.#runtime = runtime;
    this.#instanceId = instanceId;
  }

  /** The task for a job a call just started or handed off; its id names this instance first, for routing. */
  create(state: ModernState, jobId: string, made: TaskRecord['made'], before = '') {
    const now = new Date().toISOString();
    const record: TaskRecord = {
      id: `${this.#instanceId}.${randomBytes(16).toString('base64url')}`,
      state,
      jobId,
      made,
      before,
      createdAt: now,
      lastUpdatedAt: now,
      cancelled: false,
    };
    this.#tasks.set(record.id, record);
    return { resultType: 'task' as const, ...this.#base(record), status: 'working' as const, statusMessage: modernTexts.taskWorking(jobId) };
  }

  /** A task of another principal is as unknown as one that never existed: the specification's invalid params. */
  #find(principal: string, taskId: unknown): TaskRecord {
    const record = typeof taskId === 'string' ? this.#tasks.get(taskId) : undefined;
    if (!record || record.state.principal !== principal || record.state.session.closed) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, modernErrors.unknownTask(typeof taskId === 'string' ? taskId : String(taskId)));
    }
    return record;
  }

  async get(principal: string, taskId: unknown) {
    const record = this.#find(principal, taskId);
    const job = this.#runtime.jobs?.list(record.state.session.id).find((info) => info.id === record.jobId);
    if (job && (job.state === 'running' || job.state === 'stopping')) {
      return { ...this.#base(record), status: 'working' as const, statusMessage: modernTexts.taskWorking(job.id, this.#newestLine(job.id), typableLine(job.waiting)) };
    }
    if (!record.result) {
      const read = await record.state.session.callTool('job_output', { job_id: record.jobId });
      const text = read.content.map((block) => block.text).join('');
      // The result of the bash call that made the task, as its outputSchema has it, with what job_output reported.
      const { timeoutMs } = record.made;
      const facts = { kind: record.made.kind, jobId: record.jobId, ...(timeoutMs !== undefined ? { timeoutMs, output: record.before } : {}) };
      const structuredContent = read.isError ? undefined : { ...read.structuredContent, ...facts };
      record.result = { ...read, content: [{ type: 'text', text: appendLine(record.before, text) }], ...(structuredContent ? { structuredContent } : {}) };
      record.lastUpdatedAt = new Date().toISOString();
    }
    if (record.cancelled || job?.state === 'killed') {
      return { ...this.#base(record), status: 'cancelled' as const, statusMessage: record.result.content[0]!.text };
    }
    return { ...this.#base(record), status: 'completed' as const, result: { ...record.result } };
  }

  /** tasks/cancel: job_kill of the task's job (cooperative: a job that already ended stays completed). */
  async cancel(principal: string, taskId: unknown): Promise<void> {
    const record = this.#find(principal, taskId);
    const job = this.#runtime.jobs?.list(record.state.session.id).find((info) => info.id === record.jobId);
    if (!job || (job.state !== 'running' && job.state !== 'stopping')) return;
    record.cancelled = true;
    await record.state.session.callTool('job_kill', { job_id: record.jobId, reason: modernTexts.taskCancelled });
  }

  /** tasks/update: shellring's tasks never wait for input (approvals are settled before a task exists). */
  update(principal: string, taskId: unknown): void {
    this.#find(principal, taskId);
  }

  /** The last line the job printed (stdout or stderr), cut to LINE_CHARS characters; nothing before its first line. */
  #newestLine(jobId: string): string | undefined {
    const view = this.#runtime.jobs!;
    const { total } = view.follow(jobId, 0, 0);
    const tail = view.follow(jobId, Math.max(0, total - NEWEST_BYTES), NEWEST_BYTES);
    const text = Buffer.concat(tail.segments.map((segment) => segment.data)).toString('utf8');
    const line = text
      .split('\n')
      .map((part) => part.trim())
      .filter((part) => part !== '')
      .pop();
    if (line === undefined) return undefined;
    const chars = [...line];
    return chars.length > LINE_CHARS ? `${chars.slice(0, LINE_CHARS).join('')}…` : line;
  }

  /** Forgets the tasks of a closed state. */
  sweep(): void {
    for (const [id, record] of this.#tasks) if (record.state.session.closed) this.#tasks.delete(id);
  }

  #base(record: TaskRecord) {
    return {
      taskId: record.id,
      createdAt: record.createdAt,
      lastUpdatedAt: record.lastUpdatedAt,
      // A task lives as long as its state: idle expiry, not a fixed time.
      ttlMs: null,
      pollIntervalMs: POLL_INTERVAL_MS,
    };
  }
}
