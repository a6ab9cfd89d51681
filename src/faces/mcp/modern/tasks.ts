// Background jobs as tasks of the io.modelcontextprotocol/tasks extension: a task id names one job of one state;
// tasks/get reads the job's state, and once it has ended the result job_output gives; tasks/cancel is job_kill.
import { randomBytes } from 'node:crypto';
import type { Runtime } from '../../../runtime/runtime.js';
import type { ToolResult } from '../../../tools/tool.js';
import { modernErrors, modernTexts, statusLine } from '../../../contract/index.js';
import { ShellringError } from '../../../errors.js';
import type { ModernState } from './states.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** How often a client should poll a running job. */
const POLL_INTERVAL_MS = 1000;

interface TaskRecord {
  id: string;
  state: ModernState;
  jobId: string;
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
  create(state: ModernState, jobId: string, before = '') {
    const now = new Date().toISOString();
    const record: TaskRecord = {
      id: `${this.#instanceId}.${randomBytes(16).toString('base64url')}`,
      state,
      jobId,
      before,
      createdAt: now,
      lastUpdatedAt: now,
      cancelled: false,
    };
    this.#tasks.set(record.id, record);
    return { resultType: 'task' as const, ...this.#base(record), status: 'working' as const, statusMessage: modernTexts.taskWorking(jobId) };
  }

  /** A task of another principal is as unknown as one that never existed. */
  #find(principal: string, taskId: unknown): TaskRecord {
    const record = typeof taskId === 'string' ? this.#tasks.get(taskId) : undefined;
    if (!record || record.state.principal !== principal || record.state.session.closed) {
      throw new ShellringError('SHELLRING_UNKNOWN_JOB', modernErrors.unknownTask(typeof taskId === 'string' ? taskId : String(taskId)));
    }
    return record;
  }

  async get(principal: string, taskId: unknown) {
    const record = this.#find(principal, taskId);
    const job = this.#runtime.jobs?.list(record.state.session.id).find((info) => info.id === record.jobId);
    if (job && (job.state === 'running' || job.state === 'stopping')) {
      return { ...this.#base(record), status: 'working' as const, statusMessage: statusLine(job) };
    }
    if (!record.result) {
      const read = await record.state.session.callTool('job_output', { job_id: record.jobId });
      const text = read.content.map((block) => block.text).join('');
      record.result = { ...read, content: [{ type: 'text', text: record.before ? `${record.before}\n${text}` : text }] };
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
