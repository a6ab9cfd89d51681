// Session memory suite: host memory per idle session (1000 opened) and per live background job (500 `sleep`s),
// the jobs next to plain child_process children holding the same sleeps; each case in a fresh process.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SessionMemoryReport, SessionMemorySample } from '../lib/session-memory-child.js';
import { find, target, withRatios, type Figure } from '../lib/rows.js';
import type { SuiteResult } from '../lib/types.js';
import { fmt, KiB } from '../lib/units.js';

const CHILD = fileURLToPath(new URL('../lib/session-memory-child.js', import.meta.url));
const SESSIONS = 1000;
/** Enough that the RSS growth is far above its granularity (allocator arenas and pages: 512 KiB steps here, 1 KiB
 * per job at this count), not a multiple of it. */
const JOBS = 500;
const IDLE = `shellring: ${SESSIONS} sessions opened`;
const USED = `shellring: ${SESSIONS} sessions, one \`true\` call each`;
const CLOSED = `shellring: the same ${SESSIONS} sessions, closed`;
const JOB = `shellring: ${JOBS} background \`sleep 300\` jobs`;
const SPAWN = `child_process: ${JOBS} \`bash -c sleep 300\` children, piped`;
/** A job is a registry entry, a capture with its ring, a worker task and its ports: well under a MiB each. */
const TARGET_JOB_KIB = 512;
const TARGET_SESSION_KIB = 16;

function measure(who: 'shellring' | 'spawn'): SessionMemoryReport {
  const out = execFileSync(process.execPath, ['--expose-gc', CHILD, who, String(SESSIONS), String(JOBS)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out) as SessionMemoryReport;
}

function figure(name: string, sample: SessionMemorySample, extra: Record<string, number> = {}, baseline?: string): Figure {
  const per = (bytes: number) => bytes / sample.count / KiB;
  const f: Figure = {
    name,
    value: per(sample.delta.rss),
    unit: 'RSS KiB each',
    extra: { 'heap KiB each': per(sample.delta.heap), 'external KiB each': per(sample.delta.external), count: sample.count, ...extra },
  };
  if (baseline !== undefined) f.baseline = baseline;
  return f;
}

export async function run(): Promise<SuiteResult> {
  const mine = measure('shellring');
  const plain = measure('spawn');
  if (!mine.cleanedUp || !plain.cleanedUp) throw new Error('session-memory: processes were left running');
  const sessionRows = withRatios([
    figure(IDLE, mine.idle!),
    figure(USED, mine.used!, {}, IDLE),
    figure(CLOSED, mine.closed!, {}, IDLE),
  ]);
  const jobRows = withRatios([
    figure(SPAWN, plain.jobs, { 'child RSS KiB each': plain.childrenRss / JOBS / KiB }),
    figure(JOB, mine.jobs, { 'child RSS KiB each': mine.childrenRss / JOBS / KiB }, SPAWN),
  ]);
  const job = find(jobRows, JOB);
  const idle = find(sessionRows, IDLE);
  const used = find(sessionRows, USED);
  return {
    name: 'session-memory',
    description: `host memory per idle session (${SESSIONS} opened) and per live background job (${JOBS} \`sleep 300\`)`,
    tables: [
      { title: `per session, ${SESSIONS} sessions`, rows: sessionRows },
      { title: `per live job, ${JOBS} jobs (killed afterwards)`, rows: jobRows },
    ],
    targets: [
      target(
        `RSS per idle session < ${TARGET_SESSION_KIB} KiB`,
        idle.value,
        TARGET_SESSION_KIB,
        `${fmt(idle.value)} KiB RSS, ${fmt(idle.extra!['heap KiB each'] as number)} KiB heap; after one call each ${fmt(used.value)} KiB RSS`,
        true,
      ),
      target(
        `host RSS per live background job < ${TARGET_JOB_KIB} KiB`,
        job.value,
        TARGET_JOB_KIB,
        `${fmt(job.value)} KiB RSS, ${fmt(job.extra!['heap KiB each'] as number)} KiB heap (child_process children: ${fmt(find(jobRows, SPAWN).value)} KiB)`,
        true,
      ),
    ],
    notes: [
      'Each case runs in a fresh `node --expose-gc` process: warm-up (one foreground and one background call), then a ' +
        'reading after two collections with a loop turn between, the step, and a second such reading; figures are the ' +
        'delta divided by the count. RSS is coarse (pages, allocator arenas): read it over the whole count, not per item.',
      `Sessions: ${SESSIONS} runtime.session() opened and never used; then one \`true\` call in each (16 in flight), ` +
        'which gives each its spill directory and executor bookkeeping; then all closed (growth still measured from ' +
        'before the calls, so what stays is allocator retention and the warmed call path, not live sessions). ' +
        `Jobs: ${JOBS / 10} sessions x 10 background \`sleep 300\` ` +
        '(the default per-session limit), measured once every runner and sleep runs, then killed through runtime.jobs ' +
        'and checked gone from /proc.',
      'child RSS = summed VmRSS of the processes each job keeps (shellring: runner + sleep; child_process: bash execs sleep), ' +
        'outside the host process. Baseline: child_process.spawn(bash -c sleep) with both pipes read, held on the main thread.',
    ],
  };
}
