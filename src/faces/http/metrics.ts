// Prometheus metrics of the HTTP face (prom-client, one registry per server): sessions, jobs by state, tool calls by
// outcome, output bytes, worker pool use, and the process's own (event-loop delay among them).
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Runtime } from '../../runtime/runtime.js';
import type { Observer } from './observer.js';
import { outcomeOf } from './outcome.js';

export interface Metrics {
  registry: Registry;
  observer: Observer;
}

export interface LiveFigures {
  sessions(): number;
  callsInFlight(): number;
  /** Bytes kept for sessions, by store (`events`: the MCP event stores; `console`: the console's timeline). */
  retained(): Record<string, number>;
  /** The most those stores may keep for all sessions together (see budget.ts). */
  retainedBudget: number;
  /** Open connections, and those shed or refused at the cap (see connections.ts). */
  connections(): { open: number; shed: number };
}

export function createMetrics(runtime: Runtime, live: LiveFigures): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
  const registers = [registry];
  registerLiveFigures(registers, runtime, live);
  const opened = new Counter({ name: 'shellring_sessions_opened_total', help: 'MCP sessions opened', registers });
  const closed = new Counter({ name: 'shellring_sessions_closed_total', help: 'MCP sessions closed, by reason', labelNames: ['reason'], registers });
  const refused = new Counter({ name: 'shellring_refused_total', help: 'Requests and calls refused, by reason', labelNames: ['reason'], registers });
  const started = new Counter({ name: 'shellring_tool_calls_started_total', help: 'Tool calls started, by tool', labelNames: ['tool'], registers });
  const finished = new Counter({
    name: 'shellring_tool_calls_finished_total',
    help: 'Tool calls finished, by tool and outcome',
    labelNames: ['tool', 'outcome'],
    registers,
  });
  const duration = new Histogram({
    name: 'shellring_tool_call_duration_seconds',
    help: 'Tool call duration, by tool',
    labelNames: ['tool'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 600],
    registers,
  });
  // Tool names come from clients: anything the runtime does not list is one label, so no client can grow the series.
  const known = new Set(runtime.listTools().map((tool) => tool.name));
  const label = (tool: string) => (known.has(tool) ? tool : 'other');
  const observer: Observer = {
    sessionOpened: () => opened.inc(),
    sessionClosed: (_id, reason) => closed.inc({ reason }),
    refused: (reason) => refused.inc({ reason }),
    call: (event) => {
      if (event.type === 'started') {
        started.inc({ tool: label(event.tool) });
        return;
      }
      finished.inc({ tool: label(event.tool), outcome: outcomeOf(event.result).outcome });
      duration.observe({ tool: label(event.tool) }, event.durationMs / 1000);
    },
  };
  return { registry, observer };
}

/** The figures read at scrape time, from the server's tables and the runtime's running totals. */
function registerLiveFigures(registers: Registry[], runtime: Runtime, live: LiveFigures): void {
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  // A counter read from a running total the runtime keeps.
  const total = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  gauge('shellring_sessions', 'Open MCP sessions (2025-11-25 sessions and 2026-07-28 states)', live.sessions);
  new Gauge({
    name: 'shellring_retained_bytes',
    help: 'Bytes kept in memory for sessions (results a client may resume, console cards), by store',
    labelNames: ['store'],
    registers,
    collect() {
      for (const [store, bytes] of Object.entries(live.retained())) this.set({ store }, bytes);
    },
  });
  gauge(
    'shellring_retained_budget_bytes',
    'The most the retained stores may keep for all sessions together: --max-sessions times the per-session budget',
    () => live.retainedBudget,
  );
  gauge('shellring_connections', 'Open HTTP connections', () => live.connections().open);
  gauge('shellring_connections_shed_total', 'Connections closed or refused at the connection cap, which keeps descriptors for the sessions', () => live.connections().shed);
  gauge('shellring_tool_calls_in_flight', 'Tool calls running now', live.callsInFlight);
  const states = ['running', 'stopping', 'completed', 'killed', 'failed'] as const;
  new Gauge({
    name: 'shellring_jobs',
    help: 'Background jobs held by the registry, by state',
    labelNames: ['state'],
    registers,
    collect() {
      const counts = new Map<string, number>(states.map((state) => [state, 0]));
      for (const job of runtime.jobs?.list() ?? []) counts.set(job.state, (counts.get(job.state) ?? 0) + 1);
      for (const [state, n] of counts) this.set({ state }, n);
    },
  });
  total('shellring_output_captured_bytes_total', 'Bytes written by finished commands (stdout and stderr)', () => runtime.stats().capturedBytes);
  total('shellring_output_spilled_bytes_total', 'Bytes of finished commands kept whole in spill files', () => runtime.stats().spilledBytes);
  gauge('shellring_worker_pool_utilization', 'Share of time the supervisor worker pool was busy since start (0..1)', () => runtime.stats().poolUtilization);
}
