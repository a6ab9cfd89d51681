// The memory a server keeps for its sessions between calls: a fixed budget per session (its MCP event store, plus
// any store a face adds, such as the console's cards), and the server's budget, that times --max-sessions.
import { DEFAULT_EVENT_STORE_BYTES, type EventStoreLimits } from './event-store.js';

/** A store that keeps bytes per session besides the event store (the console's timeline). */
export interface RetainedStore {
  /** The `store` label on /metrics. */
  name: string;
  /** The most it keeps for one session. */
  bytesPerSession: number;
  /** What it keeps now, for every session together. */
  bytes(): number;
}

/** The most one session's stores keep. */
export function sessionBudget(events: EventStoreLimits | undefined, stores: readonly RetainedStore[]): number {
  return (events?.maxBytes ?? DEFAULT_EVENT_STORE_BYTES) + stores.reduce((sum, store) => sum + store.bytesPerSession, 0);
}

/** The most every session's stores keep together, with the server full. */
export function serverBudget(maxSessions: number, events: EventStoreLimits | undefined, stores: readonly RetainedStore[]): number {
  return maxSessions * sessionBudget(events, stores);
}
