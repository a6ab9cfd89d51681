// A bounded, per-session MCP event store: what a client missed on a stream is replayed when it resumes with Last-Event-ID.
import type { EventId, EventStore, StreamId } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ShellringError } from '../../errors.js';

export interface EventStoreLimits {
  /** Most events kept; the oldest go first. Default 1000. */
  maxEvents?: number;
  /** Most bytes (of serialized messages) kept. Default 8 MiB. */
  maxBytes?: number;
}

interface Stored {
  seq: number;
  streamId: StreamId;
  message: JSONRPCMessage;
  bytes: number;
}

/** The SDK's stream id of the standalone GET stream (server notices with no request behind them). */
export const STANDALONE_STREAM = '_GET_stream';

export class SessionEventStore implements EventStore {
  readonly #events: Stored[] = [];
  readonly #maxEvents: number;
  readonly #maxBytes: number;
  #bytes = 0;
  #seq = 0;
  /** Standalone events up to this seq reached an open stream; later ones wait for the next GET. */
  #delivered = 0;
  #standaloneOpen = 0;

  constructor(limits: EventStoreLimits = {}) {
    this.#maxEvents = limits.maxEvents ?? 1000;
    this.#maxBytes = limits.maxBytes ?? 8 * 1024 * 1024;
  }

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const seq = ++this.#seq;
    const bytes = JSON.stringify(message).length;
    this.#events.push({ seq, streamId, message, bytes });
    this.#bytes += bytes;
    while (this.#events.length > this.#maxEvents || (this.#bytes > this.#maxBytes && this.#events.length > 1)) {
      this.#bytes -= this.#events.shift()!.bytes;
    }
    if (streamId === STANDALONE_STREAM && this.#standaloneOpen > 0) this.#delivered = seq;
    return eventId(streamId, seq);
  }

  async getStreamIdForEventId(id: EventId): Promise<StreamId | undefined> {
    return parse(id)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const from = parse(lastEventId);
    if (!from) throw new ShellringError('SHELLRING_INVALID_REQUEST', `unknown event id ${JSON.stringify(lastEventId)}`);
    for (const event of this.#events.filter((e) => e.streamId === from.streamId && e.seq > from.seq)) {
      // Priming events (empty data) only hand the client a cursor; there is nothing to replay in them.
      if (!('jsonrpc' in event.message)) continue;
      await send(eventId(event.streamId, event.seq), event.message);
    }
    if (from.streamId === STANDALONE_STREAM) this.#delivered = Math.max(this.#delivered, this.#seq);
    return from.streamId;
  }

  /**
   * A standalone GET stream opens: returns the cursor to resume from when notices were stored while no stream
   * was open, so a client that never held a Last-Event-ID still receives them (a job's completion notice).
   */
  openStandalone(): string | undefined {
    this.#standaloneOpen += 1;
    const missed = this.#events.some((e) => e.streamId === STANDALONE_STREAM && e.seq > this.#delivered && 'jsonrpc' in e.message);
    const cursor = missed ? eventId(STANDALONE_STREAM, this.#delivered) : undefined;
    return cursor;
  }

  closeStandalone(): void {
    this.#standaloneOpen = Math.max(0, this.#standaloneOpen - 1);
  }

  get size(): { events: number; bytes: number } {
    return { events: this.#events.length, bytes: this.#bytes };
  }
}

function eventId(streamId: StreamId, seq: number): EventId {
  return `${seq}_${streamId}`;
}

function parse(id: EventId): { seq: number; streamId: StreamId } | undefined {
  const match = /^(\d+)_(.+)$/.exec(id);
  return match ? { seq: Number(match[1]), streamId: match[2]! } : undefined;
}
