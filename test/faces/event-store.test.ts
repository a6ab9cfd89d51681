// The MCP event store within its bytes: the newest events kept and replayed exactly, the oldest dropped, a message
// larger than the whole budget not kept at all.
import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_EVENT_STORE_BYTES, SessionEventStore } from '../../src/faces/http/event-store.js';

function result(id: number, chars: number): JSONRPCMessage {
  return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `${id}:`.padEnd(chars, 'é') }] } } as JSONRPCMessage;
}

async function replay(store: SessionEventStore, from: string): Promise<JSONRPCMessage[]> {
  const sent: JSONRPCMessage[] = [];
  await store.replayEventsAfter(from, { send: async (_id, message) => void sent.push(message) });
  return sent;
}

describe('SessionEventStore', () => {
  it('keeps at most 512 KiB of serialized events by default, the newest, and replays them as they were', async () => {
    const store = new SessionEventStore();
    const first = await store.storeEvent('s', result(0, 10));
    for (let i = 1; i <= 200; i += 1) await store.storeEvent('s', result(i, 64_000));
    expect(DEFAULT_EVENT_STORE_BYTES).toBe(512 * 1024);
    // UTF-8 bytes: 'é' takes two, so each event is about 128 KB and four fit.
    expect(store.size.bytes).toBeLessThanOrEqual(DEFAULT_EVENT_STORE_BYTES);
    expect(store.size.events).toBe(4);
    const replayed = await replay(store, first);
    expect(replayed.map((m) => (m as { id: number }).id)).toEqual([197, 198, 199, 200]);
    expect(replayed.at(-1)).toEqual(result(200, 64_000));
  });

  it('does not keep a message larger than its whole budget', async () => {
    const store = new SessionEventStore({ maxBytes: 10_000 });
    const first = await store.storeEvent('s', result(1, 100));
    await store.storeEvent('s', result(2, 20_000));
    expect(store.size.bytes).toBeLessThanOrEqual(10_000);
    expect((await replay(store, first)).length).toBe(0);
    await store.storeEvent('s', result(3, 100));
    expect((await replay(store, first)).map((m) => (m as { id: number }).id)).toEqual([3]);
  });
});
