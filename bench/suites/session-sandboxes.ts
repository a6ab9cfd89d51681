// Session sandbox suite: the first call of a new session (which builds its sandbox) against an unconfined one, per
// backend, interleaved; and what 1000 idle sessions cost once each ran one confined call: processes, threads,
// memory and idle CPU.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRuntime, type Runtime, type Session } from '../../src/index.js';
import { asyncRounds, roundRatios } from '../lib/async-rounds.js';
import { spread } from '../lib/percentiles.js';
import { cmdline, descendants, descendantsCpuMs, readTree, type TreeReading } from '../lib/process-tree.js';
import { find, target, withRatios, type Figure } from '../lib/rows.js';
import { withTempDir } from '../lib/tempdir.js';
import type { SuiteResult } from '../lib/types.js';
import { fmt, KiB, median } from '../lib/units.js';

type Backend = 'landlock' | 'bubblewrap';
const BACKENDS: Backend[] = ['landlock', 'bubblewrap'];
const NONE = 'no sandbox';
const label = (backend: Backend) => `${backend} (workspace-write)`;
const ROUNDS = 20;
const SESSIONS = Number(process.env.SHELLRING_BENCH_SESSIONS ?? 1000);
const IN_FLIGHT = 16;
const IDLE_MS = 10_000;
const TARGET_IDLE_CPU = 0.01;

async function call(session: Session, confined: boolean): Promise<void> {
  const result = await session.callTool('bash', { command: 'true', description: 'noop' });
  const facts = result.structuredContent as { exitCode?: number; sandbox?: { enforcement?: string } } | undefined;
  if (result.isError || facts?.exitCode !== 0) throw new Error(String(result.content[0]?.text));
  if (confined !== (facts.sandbox?.enforcement === 'full')) throw new Error(`enforcement ${facts.sandbox?.enforcement ?? 'none'}`);
}

/** Time of each new session's first call, per runtime, in rotated order. */
async function firstCalls(dir: string): Promise<Map<string, number[]>> {
  const subjects: { name: string; runtime: Runtime; confined: boolean }[] = [
    { name: NONE, runtime: await createRuntime({}), confined: false },
    ...(await Promise.all(
      BACKENDS.map(async (backend) => ({
        name: label(backend),
        runtime: await createRuntime({ sandbox: { mode: 'workspace-write', backend } }),
        confined: true,
      })),
    )),
  ];
  let serial = 0;
  const fresh = (runtime: Runtime) => {
    const cwd = join(dir, `first-${++serial}`);
    mkdirSync(cwd);
    return runtime.session({ id: `first-${serial}`, cwd });
  };
  try {
    for (const s of subjects) await call(fresh(s.runtime), s.confined);
    return await asyncRounds(
      subjects.map((s) => ({
        name: s.name,
        once: async () => {
          const session = fresh(s.runtime);
          const t0 = performance.now();
          await call(session, s.confined);
          const ms = performance.now() - t0;
          await session.close();
          return ms;
        },
      })),
      ROUNDS,
    );
  } finally {
    await Promise.all(subjects.map((s) => s.runtime.close()));
  }
}

interface IdleCost {
  added: TreeReading;
  /** Shares of one core while idle: the host process's own, and its descendants'. */
  hostIdle: number;
  sandboxIdle: number;
}

/** SESSIONS sessions, one confined `true` each, then idle: what they added and what they burn while idle. */
async function idleSessions(dir: string, backend: Backend): Promise<IdleCost> {
  const runtime = await createRuntime({ sandbox: { mode: 'workspace-write', backend } });
  let reading: IdleCost;
  try {
    const warm = join(dir, 'warm');
    mkdirSync(warm);
    await call(runtime.session({ id: 'warm', cwd: warm }), true);
    const before = readTree();
    let next = 0;
    const worker = async () => {
      while (next < SESSIONS) {
        const i = next++;
        const cwd = join(dir, `${backend}-${i}`);
        mkdirSync(cwd);
        await call(runtime.session({ id: `idle-${i}`, cwd }), true);
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    await sleep(1000);
    const after = readTree();
    // Only the idle window counts: the readings' own /proc reads run outside it.
    const d0 = descendantsCpuMs();
    const s0 = process.cpuUsage();
    const t0 = performance.now();
    await sleep(IDLE_MS);
    const own = process.cpuUsage(s0);
    const window = performance.now() - t0;
    const hostIdle = (own.user + own.system) / 1000 / window;
    const sandboxIdle = (descendantsCpuMs() - d0) / window;
    const added: TreeReading = {
      processes: after.processes - before.processes,
      rss: after.rss - before.rss,
      pss: after.pss - before.pss,
      cpuMs: after.cpuMs - before.cpuMs,
      threads: after.threads - before.threads,
      hostRss: after.hostRss - before.hostRss,
    };
    reading = { added, hostIdle, sandboxIdle };
  } finally {
    await runtime.close();
  }
  // The workers' own fork servers end with their threads, a moment after close returns.
  for (let waited = 0; descendants().length > 0 && waited < 10_000; waited += 100) await sleep(100);
  const left = descendants().map((pid) => `${pid} ${cmdline(pid)}`);
  if (left.length > 0) throw new Error(`session-sandboxes: processes left after close: ${left.join('; ')}`);
  return reading;
}

export async function run(): Promise<SuiteResult> {
  const rounds = await withTempDir('session-sandboxes', firstCalls);
  const names = [NONE, ...BACKENDS.map(label)];
  const firstRows = withRatios(
    names.map((name) => {
      const ms = rounds.get(name)!;
      const all = spread(ms);
      const f: Figure = { name, value: all.p50, unit: 'p50 ms', extra: { 'p99 ms': all.p99, 'max ms': all.max } };
      if (name !== NONE) {
        f.baseline = NONE;
        f.ratio = median(roundRatios(ms, rounds.get(NONE)!));
      }
      return f;
    }),
  );
  const idle = new Map<Backend, IdleCost>();
  for (const backend of BACKENDS) idle.set(backend, await withTempDir(`idle-${backend}`, (dir) => idleSessions(dir, backend)));
  const idleRows = withRatios(
    BACKENDS.map((backend) => {
      const { added, hostIdle, sandboxIdle } = idle.get(backend)!;
      return {
        name: `${SESSIONS} idle sessions, ${label(backend)}`,
        value: (hostIdle + sandboxIdle) * 100,
        unit: '% of one core idle',
        extra: {
          'host % idle': hostIdle * 100,
          'sandboxes % idle': sandboxIdle * 100,
          'processes added': added.processes,
          'processes per session': added.processes / SESSIONS,
          'host threads added': added.threads,
          'host RSS MiB added': added.hostRss / KiB / KiB,
          'sandbox RSS MiB': added.rss / KiB / KiB,
          'sandbox PSS MiB': added.pss / KiB / KiB,
          'sandbox PSS KiB per session': added.pss / KiB / SESSIONS,
        },
      } satisfies Figure;
    }),
  );
  return {
    name: 'session-sandboxes',
    description: 'the first call of a new session (it builds the session sandbox) and the cost of idle session sandboxes',
    tables: [
      { title: `first \`true\` of a new session, ${ROUNDS} sessions per runtime`, rows: firstRows },
      { title: `${SESSIONS} sessions after one confined \`true\` each, then ${IDLE_MS / 1000} s idle`, rows: idleRows },
    ],
    targets: BACKENDS.map((backend) => {
      const row = find(idleRows, `${SESSIONS} idle sessions, ${label(backend)}`);
      return target(
        `${SESSIONS} idle ${backend} session sandboxes use <= ${TARGET_IDLE_CPU * 100}% of one core`,
        row.value / 100,
        TARGET_IDLE_CPU,
        `${fmt(row.value)}% of one core, ${row.extra!['processes added']} processes, ${fmt(row.extra!['sandbox PSS MiB'] as number)} MiB PSS`,
        true,
      );
    }),
    notes: [
      `First call: three runtimes (createRuntime defaults, without and with sandbox {mode: 'workspace-write', backend}); ` +
        `each round opens a new session per runtime (its own fresh workspace directory) and times its first \`true\` ` +
        `through callTool, then closes it; ${ROUNDS} rounds, order rotated; the ratio is the median of per-round ratios.`,
      `Idle: one runtime per backend, ${SESSIONS} sessions each with its own workspace directory and one \`true\` call ` +
        `(${IN_FLIGHT} in flight), read 1 s after the last; then ${IDLE_MS / 1000} s without calls. Processes, RSS and ` +
        'PSS are those of every descendant of the benchmark process (the session sandboxes, plus the workers\' fork ' +
        'servers, present before too); host threads and RSS are the benchmark process\'s own. Idle CPU is the CPU ' +
        'time over the idle window of the benchmark process (process.cpuUsage) and of all its descendants (/proc, ' +
        'read just before and after the window). Every process is checked gone after close.',
    ],
  };
}
