// A bounded, per-session MCP event store: what a client missed on a stream is replayed when it resumes with Last-Event-ID.
import type { EventId, EventStore, StreamId } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ShellringError } from '../../errors.js';

export interface EventStoreLimits {
  /** Most events kept; the oldest go first. Default 1000. */
  maxEvents?: number;
  /** Most bytes (of serialized messages) kept; a message larger than this alone is not kept. Default 512 KiB. */
  maxBytes?: number;
}

export const DEFAULT_EVENT_STORE_BYTES = 512 * 1024;

interface Stored {
  seq: number;
  streamId: StreamId;
  /** The message as UTF-8 JSON, off the JS heap: its size is exactly what it costs, and nothing else stays alive. */
  json: Buffer | undefined;
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
    this.#maxBytes = limits.maxBytes ?? DEFAULT_EVENT_STORE_BYTES;
  }

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const seq = ++this.#seq;
    // Priming events (no JSON-RPC in them) only hand the client a cursor: their id is kept, nothing to replay.
    const json = 'jsonrpc' in message ? Buffer.from(JSON.stringify(message)) : undefined;
    const bytes = json?.length ?? 0;
    if (bytes <= this.#maxBytes) {
      this.#events.push({ seq, streamId, json });
      this.#bytes += bytes;
    }
    while (this.#events.length > this.#maxEvents || this.#bytes > this.#maxBytes) {
      this.#bytes -= this.#events.shift()!.json?.length ?? 0;
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
      if (event.json) await send(eventId(event.streamId, event.seq), JSON.parse(event.json.toString('utf8')) as JSONRPCMessage);
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
    const missed = this.#events.some((e) => e.streamId === STANDALONE_STREAM && e.seq > this.#delivered && e.json !== undefined);
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
