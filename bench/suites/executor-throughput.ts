// Executor throughput suite: 1 GiB from dd through LocalExecutor.run (tail only, and with a spill file) against
// `dd | cat >/dev/null` and a main-thread child_process capture, with the CPU each costs per GiB.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { LocalExecutor } from '../../src/index.js';
import { atMost } from '../lib/at-most.js';
import { asyncRounds, roundRatios, type AsyncCase } from '../lib/async-rounds.js';
import { jsCapture } from '../lib/js-capture.js';
import { ChildCpuSampler } from '../lib/proc-cpu.js';
import { find, target, withRatios, type Figure } from '../lib/rows.js';
import { removeFile, withTempDir } from '../lib/tempdir.js';
import { timeChild } from '../lib/timed.js';
import type { SuiteResult } from '../lib/types.js';
import { fmt, GiB, mbPerSecond, median, MiB, pct } from '../lib/units.js';

const CAP = 64000;
const ROUNDS = 7;
const DD_CAT = 'dd | cat >/dev/null (child)';
const DD_FILE = 'dd | cat >file (child, spill dir)';
const TAIL = 'executor run (tail only)';
const SPILL = 'executor run (tail + spill)';
const JS = 'child_process.spawn + JS tail';
const TARGET_TAIL = 0.9;
const TARGET_SPILL = 0.85;
const TARGET_CPU = 0.3;

interface Run {
  wallMs: number;
  /** Every thread of this process (main, workers, native readers). */
  hostCpuMs: number;
  /** The runner processes (own time, sampled from /proc), null where there is none. */
  runnerCpuMs: number | null;
  /** The child processes waited for synchronously (dd and cat), null otherwise. */
  childCpuMs: number | null;
}

const dd = (mib: number): string => `dd if=/dev/zero bs=1M count=${mib} status=none`;

async function hostTimed(body: () => Promise<void>, runner: boolean): Promise<Run> {
  const sampler = runner ? new ChildCpuSampler('shellring-runner') : undefined;
  const cpu = process.cpuUsage();
  const start = performance.now();
  await body();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  sampler?.sample();
  return { wallMs, hostCpuMs: (used.user + used.system) / 1000, runnerCpuMs: sampler ? sampler.stop().cpuMs : null, childCpuMs: null };
}

function expectTail(text: string, truncated: boolean, who: string): void {
  if (!truncated || text.length !== CAP || /[^\0]/.test(text)) throw new Error(`${who}: wrong tail (${text.length} chars, truncated ${truncated})`);
}

let serial = 0;

/** Times `bash -c script` as a synchronous child; its CPU is the children's. */
function childRun(script: string, who: string): Run {
  let status: number | null = null;
  const timing = timeChild(() => {
    status = spawnSync('bash', ['-c', script], { stdio: 'ignore' }).status;
  });
  if (status !== 0) throw new Error(`${who} failed (${status})`);
  return { wallMs: timing.wallMs, hostCpuMs: 0, runnerCpuMs: null, childCpuMs: timing.cpuMs };
}

function cases(tail: LocalExecutor, spill: LocalExecutor, dir: string, mib: number): AsyncCase<Run>[] {
  const command = dd(mib);
  const bytes = mib * MiB;
  return [
    { name: DD_CAT, once: async () => childRun(`${command} | cat >/dev/null`, DD_CAT) },
    {
      name: DD_FILE,
      once: async () => {
        const file = path.join(dir, `dd-${++serial}`);
        const run = childRun(`${command} | cat >${file}`, DD_FILE);
        const size = fs.statSync(file).size;
        removeFile(file);
        if (size !== bytes) throw new Error(`${DD_FILE}: wrote ${size} of ${bytes} bytes`);
        return run;
      },
    },
    {
      name: TAIL,
      once: () =>
        hostTimed(async () => {
          const result = await tail.run(tail.resolve({ command }));
          if (result.exitCode !== 0) throw new Error(`${TAIL}: exit ${result.exitCode}`);
          expectTail(result.stdout.text, result.stdout.truncated, TAIL);
          if (result.stdout.spillPath !== undefined) throw new Error(`${TAIL}: has a spill file`);
        }, true),
    },
    {
      name: SPILL,
      once: async () => {
        const sessionId = `throughput-${++serial}`;
        let spillPath: string | undefined;
        const run = await hostTimed(async () => {
          const result = await spill.run(spill.resolve({ command, sessionId }));
          if (result.exitCode !== 0) throw new Error(`${SPILL}: exit ${result.exitCode}`);
          expectTail(result.stdout.text, result.stdout.truncated, SPILL);
          spillPath = result.stdout.spillPath;
        }, true);
        const size = spillPath === undefined ? -1 : fs.statSync(spillPath).size;
        // Removes the spill file: the next run must not find the page cache or the disk filled by this one.
        await spill.closeSession(sessionId);
        if (size !== bytes) throw new Error(`${SPILL}: spill file holds ${size} of ${bytes} bytes`);
        return run;
      },
    },
    {
      name: JS,
      once: () =>
        hostTimed(async () => {
          const result = await jsCapture(command, CAP);
          if (result.code !== 0 || result.stdoutBytes !== bytes) throw new Error(`${JS}: exit ${result.code}, ${result.stdoutBytes} bytes`);
          expectTail(result.stdoutTail.toString('latin1'), true, JS);
        }, false),
    },
  ];
}

function figures(runs: Map<string, Run[]>): Figure[] {
  const rates = (name: string): number[] => runs.get(name)!.map((r) => mbPerSecond(GiB, r.wallMs));
  const base = rates(DD_CAT);
  return [DD_CAT, DD_FILE, TAIL, SPILL, JS].map((name) => {
    const list = runs.get(name)!;
    const own = rates(name);
    const host = median(list.map((r) => r.hostCpuMs)) / 1000;
    const runner = list[0]!.runnerCpuMs === null ? null : median(list.map((r) => r.runnerCpuMs!)) / 1000;
    const children = list[0]!.childCpuMs === null ? null : median(list.map((r) => r.childCpuMs!)) / 1000;
    const figure: Figure = {
      name,
      value: median(own),
      unit: 'MB/s',
      extra: {
        'wall s': median(list.map((r) => r.wallMs)) / 1000,
        'host cpu s/GiB': list[0]!.childCpuMs === null ? host : '-',
        'runner cpu s/GiB': runner ?? '-',
        'dd+cat cpu s/GiB': children ?? '-',
        'runs MB/s': own,
      },
    };
    if (name === SPILL) figure.extra!['x dd>file'] = median(roundRatios(own, rates(DD_FILE)));
    if (name !== DD_CAT) {
      figure.baseline = DD_CAT;
      figure.ratio = median(roundRatios(own, base));
    }
    return figure;
  });
}

export async function run(): Promise<SuiteResult> {
  const runs = await withTempDir('executor-throughput', async (dir) => {
    const tail = new LocalExecutor({ maxSpillBytes: 0 });
    const spill = new LocalExecutor({ maxSpillBytes: 2 * GiB, sessionSpillQuota: 4 * GiB, spillRoot: dir });
    try {
      // A short pass first: worker start-up, JIT and the first reader threads are not part of the figures.
      await asyncRounds(cases(tail, spill, dir, 64), 1);
      return await asyncRounds(cases(tail, spill, dir, 1024), ROUNDS);
    } finally {
      await Promise.all([tail.close(), spill.close()]);
    }
  });
  const rows = withRatios(figures(runs));
  const tailRow = find(rows, TAIL);
  const spillRow = find(rows, SPILL);
  const ddRow = find(rows, DD_CAT);
  const cpuOf = (name: string): number => {
    const extra = find(rows, name).extra!;
    return (extra['host cpu s/GiB'] as number) + (extra['runner cpu s/GiB'] as number);
  };
  const cpuTail = cpuOf(TAIL);
  return {
    name: 'executor-throughput',
    description: 'capture throughput of `dd if=/dev/zero bs=1M count=1024` (1 GiB) through LocalExecutor.run',
    tables: [{ title: '1 GiB of dd output, tail 64000 bytes', rows }],
    targets: [
      target(
        `executor run (tail only) >= ${pct(TARGET_TAIL)} of dd | cat`,
        tailRow.ratio,
        TARGET_TAIL,
        `${pct(tailRow.ratio)} (medians ${fmt(tailRow.value)} vs ${fmt(ddRow.value)} MB/s)`,
      ),
      target(
        `executor run (tail + spill) >= ${pct(TARGET_SPILL)} of dd | cat`,
        spillRow.ratio,
        TARGET_SPILL,
        `${pct(spillRow.ratio)} (medians ${fmt(spillRow.value)} vs ${fmt(ddRow.value)} MB/s)`,
      ),
      atMost(
        `executor run (tail only) host + runner CPU <= ${TARGET_CPU} s/GiB`,
        cpuTail,
        TARGET_CPU,
        `${fmt(cpuTail)} s/GiB (with spill: ${fmt(cpuOf(SPILL))} s/GiB)`,
      ),
    ],
    notes: [
      `MB/s: median of ${ROUNDS} runs per case (1 GiB each), order rotated each round, after one 64 MiB pass; ` +
        'ratios: median of per-round ratios against dd | cat in the same round.',
      'dd | cat runs as `bash -c "dd ... | cat >/dev/null"` through spawnSync; its CPU is the children\'s (/proc cutime + cstime).',
      'host cpu: process.cpuUsage of this process, every thread (main, Piscina workers, native reader threads). ' +
        'runner cpu: the shellring-runner process\'s own utime + stime, read from /proc/<pid>/stat every 20 ms until it ' +
        'is reaped (a floor: time after the last reading is missed); dd itself is not counted for the executor.',
      'dd | cat >file writes the same 1 GiB into the spill directory\'s file system: the disk\'s own pace, for reading ' +
        'the spill case (both are judged against dd | cat >/dev/null).',
      'The spill case uses maxSpillBytes 2 GiB in a fresh 0700 temp dir; each run checks the spill file holds 1 GiB, ' +
        'then closes its session, which removes the file (outside the timed span). Nothing is fsynced.',
      'child_process.spawn + JS tail: bash -c dd spawned on the main thread, stdout read in JS into a ' +
        'Buffer.concat-and-slice tail of 64000 bytes.',
    ],
  };
}
