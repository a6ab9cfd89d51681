// Memory per idle session and per live background job, in a fresh process started by the session-memory suite as
// `node --expose-gc session-memory-child.js <shellring|spawn> <sessions> <jobs>`; prints one JSON line.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRuntime } from '../../src/index.js';

export interface Delta {
  rss: number;
  heap: number;
  /** Native and ArrayBuffer memory outside the JS heap (process.memoryUsage().external). */
  external: number;
}

export interface SessionMemorySample {
  count: number;
  delta: Delta;
}

export interface SessionMemoryReport {
  /** Sessions opened and never used. */
  idle?: SessionMemorySample;
  /** Sessions after one `true` call each (spill directory, executor bookkeeping). */
  used?: SessionMemorySample;
  /** The same sessions once closed, against the same reading before their calls: what closing gives back. */
  closed?: SessionMemorySample;
  /** Live `sleep` jobs (or children), host side. */
  jobs: SessionMemorySample;
  /** Resident memory of the processes each live job keeps (runner and sleep, or the sleep alone), summed. */
  childrenRss: number;
  /** Whether every job had ended and every marked process was gone after the kill. */
  cleanedUp: boolean;
}

const [who, sessionCount, jobCount] = process.argv.slice(2);
const SESSIONS = Number(sessionCount);
const JOBS = Number(jobCount);
const MARKER = 'sleep 300.0';

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

async function reading(): Promise<Delta> {
  // Two collections with a loop turn between: native memory handed to JS is freed from the event loop.
  gc();
  await settle();
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed, external: m.external };
}

function minus(after: Delta, before: Delta): Delta {
  return { rss: after.rss - before.rss, heap: after.heap - before.heap, external: after.external - before.external };
}

/** Pids of live processes whose command line holds the marker, and their summed VmRSS in bytes. */
function marked(): { pids: number[]; rss: number } {
  const pids: number[] = [];
  let rss = 0;
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(MARKER)) continue;
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      if (/^State:\s+Z/m.test(status)) continue;
      pids.push(pid);
      rss += Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
    } catch {
      // Ended while we looked.
    }
  }
  return { pids, rss };
}

async function until(check: () => boolean, what: string): Promise<void> {
  // Hundreds of processes start or end here; a loaded machine takes its time.
  const deadline = Date.now() + 120_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function shellring(): Promise<SessionMemoryReport> {
  const runtime = await createRuntime({});
  try {
    // Warm: workers, code paths, one job's worth of registry and capture.
    const warm = runtime.session({ id: 'warm' });
    await warm.callTool('bash', { command: 'true', description: 'warm up' });
    await warm.callTool('bash', { command: 'true', description: 'warm up', run_in_background: true });
    await warm.close();

    let before = await reading();
    const sessions = Array.from({ length: SESSIONS }, (_, i) => runtime.session({ id: `idle-${i}`, cwd: '/tmp' }));
    const idle = { count: SESSIONS, delta: minus(await reading(), before) };

    before = await reading();
    const lanes = 16;
    let next = 0;
    await Promise.all(
      Array.from({ length: lanes }, async () => {
        while (next < sessions.length) {
          const result = await sessions[next++]!.callTool('bash', { command: 'true', description: 'noop' });
          if (result.isError) throw new Error(result.content[0]!.text);
        }
      }),
    );
    const used = { count: SESSIONS, delta: minus(await reading(), before) };
    await Promise.all(sessions.map((session) => session.close()));
    const closed = { count: SESSIONS, delta: minus(await reading(), before) };

    // The default limit is 10 live jobs per session: 5 sessions hold the 50 jobs.
    const owners = Array.from({ length: JOBS / 10 }, (_, i) => runtime.session({ id: `jobs-${i}`, cwd: '/tmp' }));
    before = await reading();
    for (let i = 0; i < JOBS; i++) {
      const result = await owners[i % owners.length]!.callTool('bash', {
        command: MARKER,
        description: 'sleep',
        run_in_background: true,
      });
      if (result.isError) throw new Error(result.content[0]!.text);
    }
    // Each job's runner and sleep carry the marker.
    await until(() => marked().pids.length >= 2 * JOBS, 'the sleeps');
    const jobs = { count: JOBS, delta: minus(await reading(), before) };
    const childrenRss = marked().rss;
    for (const job of runtime.jobs!.list()) runtime.jobs!.kill(job.id, 'benchmark done');
    await until(() => runtime.jobs!.list().every((job) => job.state !== 'running' && job.state !== 'stopping'), 'the kills');
    await until(() => marked().pids.length === 0, 'the processes to end');
    return { idle, used, closed, jobs, childrenRss, cleanedUp: true };
  } finally {
    await runtime.close();
  }
}

/** The baseline: the host holding 50 `sleep` children with piped stdout/stderr, as a plain child_process user would. */
async function plainSpawn(): Promise<SessionMemoryReport> {
  // Warm the spawn path.
  await new Promise((resolve) => spawn('true').on('exit', resolve));
  const before = await reading();
  const children: ChildProcess[] = [];
  for (let i = 0; i < JOBS; i++) {
    const child = spawn('bash', ['-c', MARKER], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', () => {});
    child.stderr!.on('data', () => {});
    children.push(child);
  }
  await until(() => marked().pids.length >= JOBS, 'the sleeps');
  const jobs = { count: JOBS, delta: minus(await reading(), before) };
  const childrenRss = marked().rss;
  await Promise.all(children.map((child) => new Promise((resolve) => child.on('exit', resolve).kill('SIGTERM'))));
  await until(() => marked().pids.length === 0, 'the processes to end');
  return { jobs, childrenRss, cleanedUp: true };
}

if (!(SESSIONS > 0) || !(JOBS > 0) || JOBS % 10 !== 0) throw new Error(`usage: session-memory-child.js <shellring|spawn> <sessions> <jobs: a multiple of 10>`);
const report = who === 'spawn' ? await plainSpawn() : await shellring();
process.stdout.write(`${JSON.stringify(report)}\n`);
