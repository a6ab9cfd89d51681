// The job runtime: ids, ownership, limits, settlement, consuming and observing reads, notices and retention.
import { EventEmitter } from 'node:events';
import type { CaptureBackend } from '../capture/types.js';
import { nextJobId } from './ids.js';
import { ForgottenJobs } from './forgotten.js';
import { jobOptionsSchema, type JobRegistryOptions } from './options.js';
import { appendLine, jobErrors, jobTexts, renderRead, statusLine, type JobLimits } from '../contract/index.js';
import type { FollowRead, JobEvent, JobInfo, JobSettlement, JobTerminal } from './types.js';
import { parseConfig, ShellringError } from '../errors.js';
import { collapseTerminal } from './terminal-text.js';
import { PersonTyped } from './person-typed.js';
import { info, settled, type Job, type KilledBy, type StartJob } from './job.js';

/** How far into the newest read's worth a line start is looked for (as a truncated tail does). */
const LINE_PROBE = 4096;

export class JobRegistry {
  readonly #capture: CaptureBackend;
  readonly #jobs = new Map<string, Job>();
  readonly #personTyped = new PersonTyped();
  /** The jobs of each owner, in start order: a call or a settlement looks at its owner's jobs, never at every
   * session's (a host with many sessions would pay for all of them at each call). */
  readonly #byOwner = new Map<string, Set<Job>>();
  readonly #events = new EventEmitter();
  readonly #forgotten = new ForgottenJobs();
  readonly #limit: number;
  readonly #limits: JobLimits;
  readonly #readBytes: number;
  readonly #poll: NodeJS.Timeout;
  /** How long job_input waits for a reply (see options.ts). */
  readonly inputTiming: { quietMs: number; silentMs: number; waitMs: number };
  /** Live terminal jobs one owner may hold. */
  readonly maxTerminalJobs: number;
  #notify: (notice: { sessionId: string; jobId: string; text: string }) => void = () => {};

  constructor(capture: CaptureBackend, options: JobRegistryOptions = {}) {
    this.#capture = capture;
    const { maxJobsPerOwner, maxSettledPerOwner, readBytes, waitMs, maxWaitMs, pollMs, inputQuietMs, inputSilentMs, inputWaitMs, maxTerminalJobs } =
      parseConfig(jobOptionsSchema, options, 'job options');
    this.inputTiming = { quietMs: inputQuietMs, silentMs: inputSilentMs, waitMs: inputWaitMs };
    this.maxTerminalJobs = maxTerminalJobs;
    this.#limit = maxJobsPerOwner;
    this.#limits = { readBytes, waitMs, maxWaitMs, keepSettled: maxSettledPerOwner };
    this.#readBytes = readBytes;
    this.#poll = setInterval(() => this.#pollOutput(), pollMs);
    this.#poll.unref();
  }

  /** Where completion notices go (the runtime routes them to the owning session). */
  onNotice(notify: (notice: { sessionId: string; jobId: string; text: string }) => void): void {
    this.#notify = notify;
  }

  on<T extends JobEvent['type']>(type: T, listener: (event: Extract<JobEvent, { type: T }>) => void): () => void {
    this.#events.on(type, listener as (event: JobEvent) => void);
    return () => this.#events.off(type, listener as (event: JobEvent) => void);
  }

  /** Running-or-stopping jobs one owner may hold. */
  get limit(): number {
    return this.#limit;
  }

  /** The configured figures the job tools state (read size, wait default and cap, finished jobs kept). */
  get limits(): JobLimits {
    return { ...this.#limits };
  }

  /** Whether the owner may start another job now. */
  admits(ownerId: string): boolean {
    return this.#active(ownerId) < this.#limit;
  }

  /** Throws the limit error when the owner holds too many live jobs. */
  assertAdmits(ownerId: string): void {
    if (!this.admits(ownerId)) throw new ShellringError('SHELLRING_JOB_LIMIT', jobErrors.limit(this.#limit));
  }

  /** Registers a job; throws the limit error when the owner holds too many live jobs. */
  start(request: StartJob): JobInfo {
    this.assertAdmits(request.ownerId);
    const job: Job = {
      id: nextJobId(request.kind),
      kind: request.kind,
      label: request.label,
      ...(request.description !== undefined ? { description: request.description } : {}),
      ownerId: request.ownerId,
      state: 'running',
      startedAt: Date.now(),
      foreground: request.foreground ?? false,
      ...(request.callId !== undefined ? { callId: request.callId } : {}),
      ...(request.escalation !== undefined ? { escalation: request.escalation } : {}),
      source: request.source,
      waiters: 0,
      silenced: false,
      total: 0,
      readSettled: false,
    };
    this.#jobs.set(job.id, job);
    const owned = this.#byOwner.get(job.ownerId) ?? new Set<Job>();
    this.#byOwner.set(job.ownerId, owned.add(job));
    this.#emit({ type: 'registered', job: info(job) });
    void request.source.settled.then((settlement) => this.#settle(job, settlement));
    return info(job);
  }

  /** The job for an owner's tool call, or the contract's error. */
  lookup(id: unknown, ownerId: string): JobInfo {
    return info(this.#owned(id, ownerId));
  }

  get(id: string): JobInfo | undefined {
    const job = this.#jobs.get(id);
    return job && info(job);
  }

  /** A job's interrupt, input and screen, when its source has them. */
  terminal(id: string): JobTerminal | undefined {
    return this.#jobs.get(id)?.source.terminal;
  }

  /** A person typed into the job's terminal: the model's next read of it says so, before what followed. */
  notePersonTyped(id: string, typed: string): void {
    if (this.#jobs.has(id)) this.#personTyped.note(id, typed);
  }

  /** How many bytes of output the job has had so far. */
  outputTotal(id: string): number {
    const job = this.#jobs.get(id);
    return job ? this.#capture.ringState(job.source.captureId).total : 0;
  }

  list(ownerId?: string): JobInfo[] {
    return [...(ownerId === undefined ? this.#jobs.values() : this.#ownedBy(ownerId))].map(info);
  }

  /** Requests cancellation. Returns false when the job had already settled. */
  kill(id: string, reason: string | undefined, by: KilledBy): boolean {
    const job = this.#jobs.get(id);
    if (!job) throw new ShellringError('SHELLRING_UNKNOWN_JOB', jobErrors.unknown(id));
    if (job.state !== 'running') return job.state === 'stopping';
    job.state = 'stopping';
    job.killReason = reason?.trim() || undefined;
    job.killedBy = by;
    // The owner asked for it, or nobody is left to tell: no completion notice.
    if (by !== 'person') job.silenced = true;
    this.#emit({ type: 'stopping', job: info(job) });
    job.source.kill();
    return true;
  }

  /** The owner's kill through job_kill, rendered. */
  killText(id: unknown, ownerId: string, reason?: string): string {
    const job = this.#owned(id, ownerId);
    if (job.state === 'running' || job.state === 'stopping') {
      this.kill(job.id, reason, 'owner');
      return jobTexts.killRequested(job.id);
    }
    return jobTexts.alreadyFinished(job.id, statusLine(job));
  }

  /** Waits up to `timeoutMs` for settlement; true when settled. A timed-out wait is not an error. */
  async wait(id: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const job = this.#jobs.get(id);
    if (!job) return false;
    if (settled(job.state)) return true;
    job.waiters += 1;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      const done = await Promise.race([
        job.source.settled.then(() => true),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), timeoutMs);
          onAbort = () => resolve(false);
          signal?.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
      // The waiting call returns the result itself, so the notice would only repeat it.
      if (done) job.silenced = true;
      return done;
    } finally {
      job.waiters -= 1;
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  /** One consuming read, rendered: delta text and notices, without the status line; `unreadBytes` are the bytes
   * this read left in the ring because it reached the per-read maximum. A read whose reader fell behind the ring
   * (bytes it never read are gone), or one asked for the `newest` with more than one read's worth unread, skips to the
   * newest output (from a line start), led by a line saying what it skipped and where the whole output is: the end
   * of a long output is what a model needs first. */
  readDelta(id: string, newest = false): { text: string; unreadBytes: number } {
    const job = this.#jobs.get(id)!;
    const typed = this.#personTyped.take(id);
    const skipped = this.#skipToNewest(job, newest);
    const read = this.#capture.ringRead(job.source.captureId, this.#readBytes);
    const unreadBytes = read.total - read.to;
    const notices = settled(job.state) && unreadBytes === 0 ? (job.source.settledNotices?.() ?? []) : [];
    if (settled(job.state)) job.readSettled = true;
    // Bytes lost between the look above and this read (a fast writer on the reactor's thread) are still told.
    let text = renderRead(read, read.lossy && skipped === undefined ? job.source.spillPaths() : undefined, notices);
    // A terminal's bytes (the spill file keeps them as they came) read as the lines they show.
    if (job.source.terminal?.tty) text = collapseTerminal(text);
    if (skipped !== undefined) text = appendLine(skipped, text);
    if (typed !== undefined) text = appendLine(typed, text);
    this.#trim(job.ownerId);
    return { text, unreadBytes };
  }

  /** job_output's text: one consuming read (the first read of a settled job leads with its newest output), the
   * continuation line when bytes are left, `capped` (a wait cut to its cap), the expired-wait line after a wait of
   * `waitedMs` that the job outlasted, then the status line. */
  output(id: string, waitedMs?: number, capped?: string): { text: string; unreadBytes: number } {
    const job = this.#jobs.get(id)!;
    const { text, unreadBytes } = this.readDelta(id, settled(job.state) && !job.readSettled);
    let body = appendLine(text || jobTexts.noNewOutput, '');
    if (unreadBytes > 0) body += `${jobTexts.moreOutput}\n`;
    if (capped !== undefined) body += `${capped}\n`;
    if (waitedMs !== undefined && !settled(job.state)) body += `${jobTexts.waitExpired(waitedMs)}\n`;
    return { text: body + statusLine(job), unreadBytes };
  }

  /**
   * When the reader fell behind the ring, or `newest` is asked and more than one read's worth is unread: consumes
   * all but the newest read's worth (moving on to the first line start among its first 4 KiB, as a truncated tail
   * does) and returns the line that says so; else nothing.
   */
  #skipToNewest(job: Job, newest: boolean): string | undefined {
    const capture = job.source.captureId;
    const state = this.#capture.ringState(capture);
    const behind = state.consumer < state.earliest;
    if (!behind && !(newest && state.total - state.consumer > this.#readBytes)) return undefined;
    const windowFrom = Math.max(state.total - this.#readBytes, state.earliest);
    const window = this.#capture.ringObserve(capture, windowFrom, this.#readBytes);
    const head = Buffer.concat(window.segments.map((segment) => segment.data)).subarray(0, LINE_PROBE + 1);
    const newline = head.indexOf(0x0a);
    const start = newline >= 0 && newline < LINE_PROBE && newline + 1 < window.to - window.from ? window.from + newline + 1 : window.from;
    const from = Math.max(state.consumer, state.earliest);
    const to = start > from ? this.#capture.ringRead(capture, start - from).to : from;
    return jobTexts.skipped(to - state.consumer, job.source.spillFiles?.() ?? []);
  }

  /** An observer read by offset: never moves the model's cursor. */
  follow(id: string, from: number, max = 65_536): FollowRead {
    const job = this.#jobs.get(id);
    if (!job) throw new ShellringError('SHELLRING_UNKNOWN_JOB', jobErrors.unknown(id));
    return this.#capture.ringObserve(job.source.captureId, from, max);
  }

  /** Drops a job and frees its output (a foreground job that finished in time leaves this way). */
  remove(id: string): void {
    const job = this.#jobs.get(id);
    if (!job) return;
    this.#jobs.delete(id);
    this.#personTyped.forget(id);
    const owned = this.#byOwner.get(job.ownerId);
    owned?.delete(job);
    if (owned?.size === 0) this.#byOwner.delete(job.ownerId);
    if (!settled(job.state)) {
      job.silenced = true;
      job.source.kill();
      void job.source.settled.then(() => job.source.release());
    } else {
      job.source.release();
    }
    this.#emit({ type: 'removed', jobId: id, ownerId: job.ownerId });
  }

  /** Marks a foreground job as handed to the background (it was promoted). */
  promote(id: string): void {
    const job = this.#jobs.get(id);
    if (job) job.foreground = false;
  }

  /** A foreground job whose command ended but left processes running: it stays, as a running job of its owner
   * with `detail`, until they end or it is killed. No completion notice: the call's result said what ends them. */
  keepLeftover(id: string, detail: string): boolean {
    const job = this.#jobs.get(id);
    if (job?.state !== 'running') return false;
    job.foreground = false;
    job.detail = detail;
    job.silenced = true;
    this.#emit({ type: 'progress', job: info(job), bytes: job.total });
    return true;
  }

  /** Teardown of one owner: kills its jobs without notices, waits for them, and removes them. */
  async closeOwner(ownerId: string): Promise<void> {
    const jobs = [...this.#ownedBy(ownerId)];
    for (const job of jobs) if (!settled(job.state)) this.kill(job.id, jobTexts.sessionClosed, 'teardown');
    for (const job of jobs) job.silenced = true;
    await Promise.all(jobs.map((job) => job.source.settled));
    // A foreground call still reads its result from the job's capture after settlement, then removes the job
    // itself: freeing the capture here first would fail that call with an internal error.
    for (const job of jobs) if (!job.foreground) this.remove(job.id);
    this.#forgotten.drop(ownerId);
  }

  async close(): Promise<void> {
    clearInterval(this.#poll);
    await Promise.all([...this.#byOwner.keys()].map((owner) => this.closeOwner(owner)));
  }

  #owned(id: unknown, ownerId: string): Job {
    if (typeof id !== 'string' || !id.trim()) {
      throw new ShellringError('SHELLRING_INVALID_JOB_ID', jobErrors.invalidId(id));
    }
    const job = this.#jobs.get(id);
    if (!job) {
      const forgotten = this.#forgotten.find(ownerId, id);
      if (forgotten) throw new ShellringError('SHELLRING_UNKNOWN_JOB', jobErrors.forgotten(id, forgotten.at, this.#limits.keepSettled, forgotten.status, forgotten.files));
      throw new ShellringError('SHELLRING_UNKNOWN_JOB', jobErrors.unknown(id));
    }
    if (job.ownerId !== ownerId) throw new ShellringError('SHELLRING_FOREIGN_JOB', jobErrors.foreign(id));
    return job;
  }

  #ownedBy(ownerId: string): Iterable<Job> {
    return this.#byOwner.get(ownerId) ?? [];
  }

  #active(ownerId: string): number {
    let n = 0;
    for (const job of this.#ownedBy(ownerId)) if (!settled(job.state)) n += 1;
    return n;
  }

  #settle(job: Job, settlement: JobSettlement): void {
    if (settled(job.state)) return;
    job.state = settlement.state;
    job.detail = settlement.detail;
    if (settlement.exitCode !== undefined) job.exitCode = settlement.exitCode;
    if (settlement.signal !== undefined) job.signal = settlement.signal;
    job.settledAt = Date.now();
    this.#pollJob(job);
    this.#emit({ type: 'settled', job: info(job) });
    if (!this.#jobs.has(job.id)) return;
    if (job.waiters > 0) job.silenced = true;
    if (!job.silenced && !job.foreground) {
      this.#notify({ sessionId: job.ownerId, jobId: job.id, text: jobTexts.notice(job.id, job.kind, job.label, statusLine(job)) });
    }
    this.#trim(job.ownerId);
  }

  /** Keeps at most `maxSettledPerOwner` settled jobs per owner, dropping the oldest (remembered: see forgotten.ts). */
  #trim(ownerId: string): void {
    const done = [...this.#ownedBy(ownerId)].filter((job) => settled(job.state) && !job.foreground);
    done.sort((a, b) => (a.settledAt ?? 0) - (b.settledAt ?? 0));
    for (const job of done.slice(0, Math.max(0, done.length - this.#limits.keepSettled))) {
      // Named before the capture is freed: the spill files outlive it, until the session closes.
      this.#forgotten.remember(ownerId, job.id, { at: Date.now(), status: statusLine(job), files: job.source.spillFiles?.() ?? [] });
      this.remove(job.id);
    }
  }

  #pollOutput(): void {
    // Output events are for observers: with none subscribed, idle jobs cost no polling at all.
    if (this.#events.listenerCount('output') === 0 && this.#events.listenerCount('progress') === 0) return;
    // A foreground call's output reaches its caller in the result; only jobs someone may follow are polled.
    for (const job of this.#jobs.values()) if (!settled(job.state) && !job.foreground) this.#pollJob(job);
  }

  #pollJob(job: Job): void {
    const total = this.#capture.ringState(job.source.captureId).total;
    if (total === job.total) return;
    job.total = total;
    this.#emit({ type: 'output', jobId: job.id, total });
    this.#emit({ type: 'progress', job: info(job), bytes: total });
  }

  #emit(event: JobEvent): void {
    this.#events.emit(event.type, event);
  }
}
