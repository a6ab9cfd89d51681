// The session side of the HTTP face over one runtime: the observers (logs, metrics, the caller's own), the 2025
// sessions, the 2026-07-28 states, and the session limit they share.
import type { Logger } from 'pino';
import { admissionErrors } from '../../contract/index.js';
import type { Runtime } from '../../runtime/runtime.js';
import { serverBudget } from '../http/budget.js';
import type { ConnectionGuard } from '../http/connections.js';
import { CommandCounter } from '../http/limits.js';
import { logObserver } from '../http/log.js';
import { createMetrics, type Metrics } from '../http/metrics.js';
import { fanOut, type Observer } from '../http/observer.js';
import type { HttpServeOptions } from './http.js';
import { ModernEndpoint } from './modern/endpoint.js';
import type { SessionRoutes } from './routes.js';
import { HttpSessions } from './sessions.js';

export interface SessionParts {
  sessions: HttpSessions;
  modern: ModernEndpoint;
  observer: Required<Observer>;
  metrics: Metrics | undefined;
  /** True when one more session would pass the limit. */
  full: () => boolean;
}

export interface PartsContext {
  runtime: Runtime;
  routes: SessionRoutes;
  logger: Logger;
  progressIntervalMs: number;
  maxSessions: number;
  draining: () => boolean;
  /** The listener's connection cap, once listening (for /metrics). */
  connections: () => ConnectionGuard | undefined;
}

export function composeSessions(options: HttpServeOptions, context: PartsContext): SessionParts {
  const { runtime, routes, maxSessions } = context;
  const retainedStores = options.retainedStores ?? [];
  const cwd = options.cwd ?? process.cwd();
  // The metrics read the tables lazily, at scrape time, after they exist.
  const metrics =
    options.metrics === false
      ? undefined
      : createMetrics(runtime, {
          sessions: () => sessions.size + modern.size,
          callsInFlight: () => sessions.callsInFlight,
          retained: () => ({
            events: sessions.retainedBytes(),
            ...Object.fromEntries(retainedStores.map((store) => [store.name, store.bytes()])),
          }),
          retainedBudget: serverBudget(maxSessions, options.events, retainedStores),
          connections: () => ({ open: context.connections()?.open ?? 0, shed: context.connections()?.shed ?? 0 }),
        });
  const observer = fanOut([
    logObserver(context.logger, { logCommands: options.logCommands }),
    ...(metrics ? [metrics.observer] : []),
    ...(options.observers ?? []),
  ]);
  const sessions = new HttpSessions({
    runtime,
    routes,
    cwd,
    counter: new CommandCounter(runtime, options),
    observer,
    events: options.events,
    maxBodyBytes: options.maxBodyBytes,
    clock: options.clock,
    progressIntervalMs: context.progressIntervalMs,
    gate: () => {
      if (!context.draining()) return undefined;
      observer.refused('draining');
      return admissionErrors.draining;
    },
  });
  /** Every session a client can make counts: 2025 sessions (and those opening), 2026 defaults and handles. */
  const full = () => sessions.size + sessions.opening + modern.size >= maxSessions;
  // 2026-07-28 requests: no protocol sessions; state by handle or principal, in the same runtime.
  const modern = new ModernEndpoint({
    runtime,
    routes,
    cwd,
    instanceId: options.instanceId,
    maxBodyBytes: options.maxBodyBytes,
    progressIntervalMs: context.progressIntervalMs,
    sessions,
    clock: options.clock,
    admitState: () => {
      if (!full()) return undefined;
      observer.refused('session-limit');
      return admissionErrors.sessionsFull(maxSessions);
    },
  });
  return { sessions, modern, observer, metrics, full };
}
