// One Server-Sent Events connection: state snapshots, timeline cards and live output read by observer cursors.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Runtime } from '../../runtime/runtime.js';
import type { ConsoleApprovals } from './approvals.js';
import { snapshot } from './snapshot.js';
import type { CallCard, Timeline } from './timeline.js';

/** Most output bytes one message carries. */
export const OUTPUT_CHUNK = 32 * 1024;
/**
 * Output messages the page may have unrendered. The page acknowledges what it has drawn; past this window no
 * output is sent, so a busy browser sees fresh bytes when it catches up instead of a backlog in socket buffers.
 */
export const WINDOW = 2;
/** How often live output is looked at: one observer read per followed job per tick. */
export const TICK_MS = 40;
/** State snapshots are coalesced to at most one per this interval. */
const STATE_MS = 250;
/** A comment line keeps proxies from closing an idle stream. */
const KEEPALIVE_MS = 15_000;

export interface StreamOptions {
  runtime: Runtime;
  timeline: Timeline;
  approvals: ConsoleApprovals | undefined;
  /** The session whose timeline and live output this page shows. */
  sessionId?: string;
  /** A job followed besides the session's own (the task list's selection). */
  jobId?: string;
}

export class ConsoleStream {
  /** Names the stream in the page's acknowledgements. */
  readonly id = randomUUID();
  readonly #res: ServerResponse;
  readonly #options: StreamOptions;
  /** Observer cursors by job id: absolute offsets into each job's output. The model's cursor never moves. */
  readonly #cursors = new Map<string, number>();
  readonly #done = new Set<string>();
  readonly #cards = new Map<string, CallCard>();
  readonly #cleanup: (() => void)[] = [];
  #stateDirty = true;
  /** Whether the session's cards held at connection time have all been sent (the page is told once). */
  #synced = false;
  #stateAt = 0;
  #closed = false;
  #blocked = false;
  #sent = 0;
  #acked = 0;

  constructor(res: ServerResponse, options: StreamOptions) {
    this.#res = res;
    this.#options = options;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    const { runtime, timeline, approvals, sessionId } = options;
    if (sessionId) {
      for (const card of timeline.cards(sessionId)) this.#cards.set(card.callId, card);
      this.#cleanup.push(
        timeline.onCard((card) => {
          if (card.sessionId !== sessionId) return;
          this.#cards.delete(card.callId);
          this.#cards.set(card.callId, card);
        }),
      );
    }
    const dirty = () => (this.#stateDirty = true);
    if (runtime.jobs) {
      for (const type of ['registered', 'stopping', 'settled', 'removed'] as const) {
        this.#cleanup.push(runtime.jobs.on(type, dirty));
      }
      this.#cleanup.push(
        runtime.jobs.on('progress', (event) => {
          timeline.touch(event.job.ownerId);
          dirty();
        }),
      );
      this.#cleanup.push(runtime.jobs.on('removed', (event) => this.#forget(event.jobId)));
    }
    this.#cleanup.push(timeline.onCard(dirty));
    if (approvals) this.#cleanup.push(approvals.onChange(dirty));
    const tick = setInterval(() => this.#pump(), TICK_MS);
    const keepalive = setInterval(() => this.#write(': keepalive\n\n'), KEEPALIVE_MS);
    this.#cleanup.push(() => clearInterval(tick), () => clearInterval(keepalive));
    res.on('drain', () => {
      this.#blocked = false;
      this.#pump();
    });
    res.on('close', () => this.close());
    this.#send('hello', { stream: this.id, window: WINDOW });
    this.#pump();
  }

  /** The page has drawn every output message up to `seq`. */
  ack(seq: number): void {
    if (!Number.isSafeInteger(seq) || seq <= this.#acked || seq > this.#sent) return;
    this.#acked = seq;
    this.#pump();
  }

  /** Something the runtime does not announce changed (a session's mode): the next snapshot shows it. */
  refresh(): void {
    this.#stateDirty = true;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const undo of this.#cleanup) undo();
    this.#cards.clear();
    this.#cursors.clear();
    if (!this.#res.writableEnded) this.#res.end();
  }

  /** Writes what is due, in order of importance, while the socket takes it. */
  #pump(): void {
    if (this.#closed || this.#blocked) return;
    const now = Date.now();
    // Byte counts of live jobs change without an event (a foreground call's job is not polled): refresh each second.
    if (!this.#stateDirty && now - this.#stateAt >= 1000 && this.#followed().length > 0) this.#stateDirty = true;
    if (this.#stateDirty && now - this.#stateAt >= STATE_MS) {
      this.#stateDirty = false;
      this.#stateAt = now;
      const { runtime, timeline, approvals } = this.#options;
      if (!this.#send('state', snapshot(runtime, timeline, approvals))) return;
    }
    for (const [id, card] of this.#cards) {
      this.#cards.delete(id);
      if (!this.#send('card', card)) return;
    }
    if (!this.#synced) {
      this.#synced = true;
      if (!this.#send('synced', {})) return;
    }
    for (const jobId of this.#followed()) {
      if (this.#sent - this.#acked >= WINDOW) return;
      if (!this.#output(jobId)) return;
    }
  }

  #followed(): string[] {
    const { runtime, sessionId, jobId } = this.#options;
    const ids = (runtime.jobs?.list(sessionId ?? '\0none') ?? []).map((job) => job.id);
    if (jobId && !ids.includes(jobId)) ids.push(jobId);
    return ids.filter((id) => !this.#done.has(id));
  }

  /** One observer read of a job; false when the socket is full. */
  #output(jobId: string): boolean {
    const jobs = this.#options.runtime.jobs!;
    const cursor = this.#cursors.get(jobId) ?? 0;
    let read;
    try {
      read = jobs.follow(jobId, cursor, OUTPUT_CHUNK);
      // Behind by more than the ring holds: bytes are lost either way, so the page jumps to the newest ones.
      if (read.lossy && read.total - read.from > OUTPUT_CHUNK) read = jobs.follow(jobId, read.total - OUTPUT_CHUNK, OUTPUT_CHUNK);
    } catch {
      this.#forget(jobId);
      return true;
    }
    const skipped = read.from - cursor;
    if (read.to === cursor && skipped === 0) {
      if (read.settled) this.#done.add(jobId);
      return true;
    }
    this.#cursors.set(jobId, read.to);
    const chunks = read.segments.map((segment) => ({ kind: segment.kind, text: segment.data.toString('utf8') }));
    this.#sent += 1;
    return this.#send('output', { seq: this.#sent, jobId, from: read.from, to: read.to, total: read.total, skipped, chunks });
  }

  #forget(jobId: string): void {
    this.#cursors.delete(jobId);
    this.#done.delete(jobId);
  }

  #send(event: string, data: unknown): boolean {
    return this.#write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  #write(text: string): boolean {
    if (this.#closed) return false;
    // Past the response's high-water mark nothing more is produced until 'drain': output waits in the job's ring
    // (its own bounded memory), and what the ring drops meanwhile reaches the page as a count of skipped bytes.
    const ok = this.#res.write(text);
    if (!ok) this.#blocked = true;
    return ok;
  }
}
