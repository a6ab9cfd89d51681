// Live-jobs suite: 1000 background jobs over 100 sessions held by one createRuntime() host: the host's threads,
// RSS growth and CPU while the jobs idle, job_list latency, and the time close() takes to end them all.
import { readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { createRuntime } from '../../src/index.js';
import { atMost } from '../lib/at-most.js';
import { descendantsNamed } from '../lib/proc-cpu.js';
import { spread } from '../lib/percentiles.js';
import { withRatios } from '../lib/rows.js';
import type { SuiteResult } from '../lib/types.js';
import { fmt, MiB } from '../lib/units.js';

const SESSIONS = 100;
const PER_SESSION = 10;
const IDLE_MS = 5_000;
/** How long after the first idle span the second starts: by then every job's looks are 8–16 s apart. */
const SETTLE_MS = 30_000;
const LIST_CALLS = 1_000;

const threads = () => readdirSync('/proc/self/task').length;

/** Runner processes this host has started that are still alive: a job is live once its runner runs. */
/** Runners alive: shellring-runner processes forked by the host's fork servers (its own children). */
function liveRunners(): number {
  return descendantsNamed('shellring-runne').filter(({ ppid }) => ppid !== process.pid).length;
}
const rss = () => process.memoryUsage().rss;

function cpuMs(): number {
  const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticks;
}

export async function run(): Promise<SuiteResult> {
  const before = { threads: threads(), rss: rss() };
  const runtime = await createRuntime();
  let closeMs = Number.NaN;
  let spawnMs = Number.NaN;
  let figures;
  try {
    const sessions = Array.from({ length: SESSIONS }, (_, i) => runtime.session({ id: `bench-live-${i}` }));
    // A first call brings the workers up; their threads are Piscina's own.
    await sessions[0]!.callTool('bash', { command: 'true', description: 'warm up' });
    const idleRuntime = { threads: threads(), rss: rss() };
    const started = performance.now();
    for (const s of sessions) {
      await Promise.all(
        Array.from({ length: PER_SESSION }, () =>
          s.callTool('bash', { command: 'exec sleep 3600', description: 'idle job', run_in_background: true }),
        ),
      );
    }
    const running = runtime.jobs!.list().filter((job) => job.state === 'running').length;
    if (running !== SESSIONS * PER_SESSION) throw new Error(`only ${running} jobs running`);
    // The tool answers once a job is registered; its process may start a little later. Measure once all run.
    while (liveRunners() < SESSIONS * PER_SESSION) await new Promise((resolve) => setTimeout(resolve, 100));
    spawnMs = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const loaded = { threads: threads(), rss: rss() };
    const cpu0 = cpuMs();
    const t0 = performance.now();
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idleCpu = (cpuMs() - cpu0) / (performance.now() - t0);
    // Later, once every job has been silent long enough for its looks to have spread out (see silence-watch.ts).
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const cpu1 = cpuMs();
    const t1 = performance.now();
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const settledCpu = (cpuMs() - cpu1) / (performance.now() - t1);
    const listMs: number[] = [];
    for (let i = 0; i < LIST_CALLS; i++) {
      const s = sessions[i % SESSIONS]!;
      const t = performance.now();
      const result = await s.callTool('job_list', {});
      listMs.push(performance.now() - t);
      if (result.isError) throw new Error('job_list failed');
    }
    const list = spread(listMs);
    const c0 = performance.now();
    await runtime.close();
    closeMs = performance.now() - c0;
    figures = {
      extraThreads: loaded.threads - idleRuntime.threads,
      rssGrowthMiB: (loaded.rss - idleRuntime.rss) / MiB,
      idleCpuPct: idleCpu * 100,
      settledCpuPct: settledCpu * 100,
      list,
      closeMs,
      threads: { before: before.threads, idleRuntime: idleRuntime.threads, loaded: loaded.threads },
    };
  } finally {
    await runtime.close();
  }
  const rows = withRatios([
    { name: 'host threads beyond the runtime idle (1000 live jobs)', value: figures.extraThreads, unit: 'threads', extra: figures.threads },
    { name: 'host RSS growth for 1000 live jobs', value: figures.rssGrowthMiB, unit: 'MiB' },
    { name: 'host CPU while 1000 jobs idle', value: figures.idleCpuPct, unit: '% of one core' },
    { name: `host CPU while 1000 jobs idle, ${SETTLE_MS / 1000 + 1 + IDLE_MS / 1000} s on`, value: figures.settledCpuPct, unit: '% of one core' },
    { name: 'job_list p99', value: figures.list.p99, unit: 'ms', extra: { 'p50 ms': figures.list.p50, 'max ms': figures.list.max } },
    { name: 'runtime.close() with 1000 live jobs', value: figures.closeMs, unit: 'ms' },
    { name: 'starting 1000 jobs (first call to every runner alive)', value: spawnMs, unit: 'ms' },
  ]);
  return {
    name: 'live-jobs',
    description: '1000 live background jobs over 100 sessions in one createRuntime() host',
    tables: [{ title: `${SESSIONS} sessions x ${PER_SESSION} background \`sleep\` jobs, createRuntime() defaults`, rows }],
    targets: [
      atMost('host threads beyond the idle runtime <= 16', figures.extraThreads, 16, `${figures.extraThreads} threads`),
      atMost('host RSS growth <= 64 MiB', figures.rssGrowthMiB, 64, `${fmt(figures.rssGrowthMiB)} MiB`),
      atMost('host CPU while idle <= 1% of one core', figures.idleCpuPct, 1, `${fmt(figures.idleCpuPct)}%`),
      atMost(
        'host CPU while idle, the jobs silent for half a minute, <= 1% of one core',
        figures.settledCpuPct,
        1,
        `${fmt(figures.settledCpuPct)}%`,
      ),
      atMost('job_list p99 <= 2 ms', figures.list.p99, 2, `${fmt(figures.list.p99)} ms (p50 ${fmt(figures.list.p50)} ms)`),
      atMost('close with 1000 live jobs <= 2000 ms', figures.closeMs, 2000, `${fmt(figures.closeMs)} ms`),
    ],
    notes: [
      'Threads from /proc/self/task: the runtime idle (after one call, so its worker threads exist) vs with every job live.',
      `RSS: process.memoryUsage().rss, idle runtime vs 1 s after the last job started. CPU: the host process's utime+stime over ${IDLE_MS / 1000} s of idling, from then (each job's first looks at what it waits for fall in it) and again ${SETTLE_MS / 1000} s later.`,
      `job_list: ${LIST_CALLS} sequential calls spread over the sessions, each listing its 10 jobs. Close: runtime.close() to resolution, every job live.`,
    ],
  };
}
