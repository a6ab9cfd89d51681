// Capture suite: 1 GiB through the bash tool of createRuntime() (its defaults: 64000-byte tail and the whole stream
// in a spill file), against a ceiling, the fastest in each round of C readers of the same pipe that each do less
// work than the capture (blocking reads, splice(2) with no copy at all, and splice(2) through a relay pipe, to a file
// or not), and
// `dd | cat` pinned to one CPU; CPU per GiB against the C readers' own.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createRuntime, type Runtime } from '../../src/index.js';
import { atMost } from '../lib/at-most.js';
import { asyncRounds, roundRatios, type AsyncCase } from '../lib/async-rounds.js';
import { ChildCpuSampler } from '../lib/proc-cpu.js';
import { find, target, withRatios, type Figure } from '../lib/rows.js';
import { removeFile, withTempDir } from '../lib/tempdir.js';
import { timeChild } from '../lib/timed.js';
import type { SuiteResult } from '../lib/types.js';
import { fmt, GiB, mbPerSecond, median, MiB } from '../lib/units.js';

export const aliases = ['capture'];

const here = path.dirname(fileURLToPath(import.meta.url));
/** The reader's source, in the source tree (this file runs from dist/bench/suites). */
const READER_SOURCE = path.resolve(here, '../../../bench/lib/reader.c');
/** The pipe and read sizes of shellring's reactor (crates/core/src/pipe.rs, reactor.rs). */
const PIPE_BYTES = MiB;
const READ_BYTES = 256 * 1024;
const CAP = 64000;
const ROUNDS = 5;
const PRODUCER = (mib: number): string => `dd if=/dev/zero bs=1M count=${mib} status=none`;

const READER = 'read(2) reader (C), discarding';
const READER_FILE = 'read(2) reader (C), to a file';
const SPLICER = 'splice(2) reader (C), to /dev/null';
const RELAY = 'splice(2) reader (C), through a relay pipe to /dev/null';
const SPLICER_FILE = 'splice(2) reader (C), to a file';
const SPLICER_DIRECT = 'splice(2) reader (C), to an O_DIRECT file';
const RELAY_FILE = 'splice(2) reader (C), through a relay pipe to a file allocated ahead';
/** Per round, the faster of the two readers: what the capture, doing more than either, is held against. */
const CEILING = 'ceiling: fastest reader of each round, nothing kept';
const CEILING_FILE = 'ceiling: fastest reader of each round, to a file';
const DD_PINNED = 'dd | cat >/dev/null, taskset -c 0';
const RUNTIME = 'bash tool, createRuntime() defaults (tail + spill file)';
const RUNTIME_TAIL = 'bash tool, createRuntime() tail only (maxSpillBytes 0)';
/** The kept-files phase: each run's file stays until the phase ends, as a server's sessions keep their spill files. */
const KEPT_ROUNDS = 2;
const RELAY_KEPT = 'splice(2) reader (C), through a relay pipe to a file, earlier files kept';
const DIRECT_KEPT = 'splice(2) reader (C), to an O_DIRECT file, earlier files kept';
const RUNTIME_KEPT = 'bash tool, createRuntime() defaults, earlier spill files kept';
const TARGET_RATIO = 0.9;
const TARGET_CPU = 0.3;
const SAMPLE_MS = 100;

interface Run {
  wallMs: number;
  /** Every thread of this process (main, workers, reactor), null for children timed alone. */
  hostCpuMs: number | null;
  /** shellring-runner's own CPU (sampled from /proc), null where there is none. */
  runnerCpuMs: number | null;
  /** Waited-for children's CPU (reader or dd and cat, and the producer), null otherwise. */
  childCpuMs: number | null;
  /** A C reader's own CPU (its getrusage, the producer not counted), null otherwise. */
  readerCpuMs: number | null;
}

function compileReader(dir: string): string {
  const binary = path.join(dir, 'reader');
  execFileSync('cc', ['-O2', '-o', binary, READER_SOURCE]);
  return binary;
}

function childRun(file: string, args: string[], who: string, bytes: number | null): Run {
  let status: number | null = null;
  let out = '';
  const timing = timeChild(() => {
    const r = spawnSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    status = r.status;
    out = r.stdout;
  });
  if (status !== 0) throw new Error(`${who} failed (${status})`);
  // A reader prints the bytes it moved and its own CPU in microseconds.
  const [read, cpuUs] = out.trim().split(' ').map(Number);
  if (bytes !== null && read !== bytes) throw new Error(`${who}: read ${out.trim()} of ${bytes} bytes`);
  const readerCpuMs = bytes === null ? null : cpuUs! / 1000;
  return { wallMs: timing.wallMs, hostCpuMs: null, runnerCpuMs: null, childCpuMs: timing.cpuMs, readerCpuMs };
}

let serial = 0;

/** One bash tool call, timed; checks the tail and the spill file, and returns the session it ran in. */
async function toolCall(runtime: Runtime, command: string, bytes: number, who: string, spill: boolean): Promise<{ run: Run; session: string }> {
  const session = `capture-${++serial}`;
  // /proc keeps 15 characters of a command name. The sampler's reads count in this process's CPU (every 20 ms, they
  // cost 12–22 ms per GiB), and a runner spends almost nothing while its command streams: a sample every 100 ms.
  const sampler = new ChildCpuSampler('shellring-runne', SAMPLE_MS);
  const cpu = process.cpuUsage();
  const start = performance.now();
  const result = await runtime.session({ id: session }).callTool('bash', { command, description: 'print a gibibyte' });
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  sampler.sample();
  const text = result.content.map((part) => part.text).join('');
  const marker = text.lastIndexOf('\n[output truncated; full output: ');
  if (marker !== CAP) throw new Error(`${who}: tail of ${marker} chars: ${text.slice(-200)}`);
  const spillPath = /full output: (\/\S+)\]$/.exec(text)?.[1];
  if (spill !== (spillPath !== undefined)) throw new Error(`${who}: spill file ${spillPath ?? '(unavailable)'}`);
  if (spillPath !== undefined && fs.statSync(spillPath).size !== bytes) throw new Error(`${who}: short spill file`);
  return {
    run: { wallMs, hostCpuMs: (used.user + used.system) / 1000, runnerCpuMs: sampler.stop().cpuMs, childCpuMs: null, readerCpuMs: null },
    session,
  };
}

function cases(reader: string, dir: string, runtime: Runtime, tailOnly: Runtime, mib: number): AsyncCase<Run>[] {
  const producer = PRODUCER(mib);
  const bytes = mib * MiB;
  const drain = (name: string, mode: 'read' | 'splice' | 'direct' | 'relay', toFile: boolean): AsyncCase<Run> => ({
    name,
    once: async () => {
      const file = toFile ? path.join(dir, `reader-${++serial}`) : '-';
      const run = childRun(reader, [`${PIPE_BYTES}`, `${READ_BYTES}`, mode, file, producer], name, bytes);
      if (toFile) removeFile(file);
      return run;
    },
  });
  return [
    drain(READER, 'read', false),
    drain(SPLICER, 'splice', false),
    drain(RELAY, 'relay', false),
    drain(READER_FILE, 'read', true),
    drain(SPLICER_FILE, 'splice', true),
    drain(SPLICER_DIRECT, 'direct', true),
    drain(RELAY_FILE, 'relay', true),
    {
      name: DD_PINNED,
      once: async () => childRun('taskset', ['-c', '0', 'bash', '-c', `${producer} | cat >/dev/null`], DD_PINNED, null),
    },
    {
      name: RUNTIME,
      once: async () => {
        const { run, session } = await toolCall(runtime, producer, bytes, RUNTIME, true);
        // Removes the spill file outside the timed span: the next run must not find the page cache filled by this one.
        await runtime.session({ id: session }).close();
        return run;
      },
    },
    { name: RUNTIME_TAIL, once: async () => (await toolCall(tailOnly, producer, bytes, RUNTIME_TAIL, false)).run },
  ];
}

function figures(runs: Map<string, Run[]>): Figure[] {
  const measured = (name: string): number[] => runs.get(name)!.map((r) => mbPerSecond(GiB, r.wallMs));
  const ceilings: Record<string, string[]> = { [CEILING]: [READER, SPLICER, RELAY], [CEILING_FILE]: [READER_FILE, SPLICER_FILE, RELAY_FILE] };
  const rates = (name: string): number[] => {
    const readers = ceilings[name];
    if (readers === undefined) return measured(name);
    const each = readers.map(measured);
    return each[0]!.map((_, round) => Math.max(...each.map((rates) => rates[round]!)));
  };
  const baselineOf: Record<string, string> = { [RUNTIME]: CEILING_FILE, [RUNTIME_TAIL]: CEILING };
  const ceilingRows = Object.keys(ceilings).map((name): Figure => {
    const own = rates(name);
    return { name, value: median(own), unit: 'MB/s', extra: { 'x dd|cat pinned': median(roundRatios(own, rates(DD_PINNED))), 'runs MB/s': own } };
  });
  return [...ceilingRows, ...[READER, SPLICER, RELAY, READER_FILE, SPLICER_FILE, RELAY_FILE, SPLICER_DIRECT, DD_PINNED, RUNTIME, RUNTIME_TAIL].map((name) => {
    const list = runs.get(name)!;
    const own = rates(name);
    const sum = (pick: (r: Run) => number | null): number | string =>
      pick(list[0]!) === null ? '-' : median(list.map((r) => pick(r)!)) / 1000;
    const figure: Figure = {
      name,
      value: median(own),
      unit: 'MB/s',
      extra: {
        'wall s': median(list.map((r) => r.wallMs)) / 1000,
        'host cpu s/GiB': sum((r) => r.hostCpuMs),
        'runner cpu s/GiB': sum((r) => r.runnerCpuMs),
        'children cpu s/GiB': sum((r) => r.childCpuMs),
        'reader cpu s/GiB': sum((r) => r.readerCpuMs),
        'x dd|cat pinned': median(roundRatios(own, rates(DD_PINNED))),
        'runs MB/s': own,
      },
    };
    const baseline = baselineOf[name];
    if (baseline !== undefined) {
      figure.baseline = baseline;
      figure.ratio = median(roundRatios(own, rates(baseline)));
    }
    return figure;
  })];
}

/** The kept-files phase's cases; `sessions` collects the runtime's sessions, closed (their files removed) after it. */
function keptCases(reader: string, dir: string, runtime: Runtime, sessions: string[]): AsyncCase<Run>[] {
  const producer = PRODUCER(1024);
  const kept = (name: string, mode: 'direct' | 'relay'): AsyncCase<Run> => ({
    name,
    once: async () => childRun(reader, [`${PIPE_BYTES}`, `${READ_BYTES}`, mode, path.join(dir, `kept-${++serial}`), producer], name, GiB),
  });
  return [
    kept(RELAY_KEPT, 'relay'),
    kept(DIRECT_KEPT, 'direct'),
    {
      name: RUNTIME_KEPT,
      once: async () => {
        const { run, session } = await toolCall(runtime, producer, GiB, RUNTIME_KEPT, true);
        sessions.push(session);
        return run;
      },
    },
  ];
}

/** MB/s and CPU per GiB (the reader's own, or host + runner) of the kept-files phase, medians of its runs. */
function keptFigures(runs: Map<string, Run[]>): Figure[] {
  return [...runs].map(([name, list]) => ({
    name,
    value: median(list.map((r) => mbPerSecond(GiB, r.wallMs))),
    unit: 'MB/s',
    extra: {
      'cpu s/GiB': median(list.map((r) => r.readerCpuMs ?? r.hostCpuMs! + r.runnerCpuMs!)) / 1000,
      'runs MB/s': list.map((r) => mbPerSecond(GiB, r.wallMs)),
    },
  }));
}

export async function run(): Promise<SuiteResult> {
  const { rounds: rows, kept } = await withTempDir('capture', async (dir) => {
    const reader = compileReader(dir);
    // The file-writing reader and the runtime's spill files share one file system (the OS temp dir).
    const runtime = await createRuntime({});
    const tailOnly = await createRuntime({ executor: { maxSpillBytes: 0 } });
    try {
      // A short pass first: worker start-up and JIT are not part of the figures.
      await asyncRounds(cases(reader, dir, runtime, tailOnly, 64), 1);
      const rounds = withRatios(figures(await asyncRounds(cases(reader, dir, runtime, tailOnly, 1024), ROUNDS)));
      const sessions: string[] = [];
      try {
        return { rounds, kept: withRatios(keptFigures(await asyncRounds(keptCases(reader, dir, runtime, sessions), KEPT_ROUNDS))) };
      } finally {
        await Promise.all(sessions.map((id) => runtime.session({ id }).close()));
      }
    } finally {
      await Promise.all([runtime.close(), tailOnly.close()]);
    }
  });
  const full = find(rows, RUNTIME);
  const tail = find(rows, RUNTIME_TAIL);
  const cpu = (row: typeof full): number => (row.extra!['host cpu s/GiB'] as number) + (row.extra!['runner cpu s/GiB'] as number);
  const readerCpu = (name: string): string => fmt(find(rows, name).extra!['reader cpu s/GiB'] as number);
  const pinned = (row: typeof full): string => `${fmt(row.extra!['x dd|cat pinned'] as number)}x dd | cat pinned`;
  return {
    name: 'executor-throughput',
    description: 'capture of 1 GiB (`dd if=/dev/zero bs=1M count=1024`) through the bash tool of createRuntime()',
    tables: [
      { title: `1 GiB through a ${PIPE_BYTES / MiB} MiB pipe in ${READ_BYTES / 1024} KiB reads`, rows },
      { title: `then ${KEPT_ROUNDS} rounds of 1 GiB each, every file kept until the last`, rows: kept },
    ],
    targets: [
      target(
        `bash tool (defaults, tail + spill) >= ${TARGET_RATIO}x the ceiling of readers writing a file`,
        full.ratio,
        TARGET_RATIO,
        `${fmt(full.ratio)}x (medians ${fmt(full.value)} vs ${fmt(find(rows, CEILING_FILE).value)} MB/s; ${pinned(full)})`,
      ),
      target(
        `bash tool (tail only) >= ${TARGET_RATIO}x the ceiling of readers keeping nothing`,
        tail.ratio,
        TARGET_RATIO,
        `${fmt(tail.ratio)}x (medians ${fmt(tail.value)} vs ${fmt(find(rows, CEILING).value)} MB/s; ${pinned(tail)})`,
      ),
      atMost(
        `bash tool (defaults) host + runner CPU <= ${TARGET_CPU} s/GiB`,
        cpu(full),
        TARGET_CPU,
        `${fmt(cpu(full))} s/GiB (tail only: ${fmt(cpu(tail))} s/GiB; the C readers' own in the same rounds: ` +
          `relayed to a file allocated ahead ${readerCpu(RELAY_FILE)}, splice(2) to a file ${readerCpu(SPLICER_FILE)}, ` +
          `read(2) to a file ${readerCpu(READER_FILE)}, splice(2) to an O_DIRECT file ${readerCpu(SPLICER_DIRECT)} s/GiB)`,
      ),
    ],
    notes: [
      `MB/s: median of ${ROUNDS} runs per case (1 GiB each), order rotated each round, after one 64 MiB pass; ` +
        'ratios: median of per-round ratios against the baseline named in the row, measured in the same round.',
      `Readers: bench/lib/reader.c, built with cc -O2 by the suite; it grows its pipe to ${PIPE_BYTES} bytes and drains ` +
        `${READ_BYTES} bytes at a time (shellring's own sizes), with blocking read(2) into one buffer, with splice(2) ` +
        '(no copy through user space), or with splice(2) of all its pipe holds into a second pipe, itself spliced to ' +
        '/dev/null or a file that many bytes at a time (so the producer waits for its pipe only while pages are handed ' +
        'over, never while they are freed or copied into the page cache, as in shellring; into a file whose blocks it ' +
        'allocates ahead, as shellring\'s spill files are); no event loop, no tail, no second stream. It runs bash -c ' +
        'dd as shellring does; ' +
        '"to a file" puts every byte into a new file in the same temp file system as the spill files; "to an O_DIRECT ' +
        'file" splices into a file opened O_DIRECT (no copy into the page cache; not a ceiling: shellring\'s spill ' +
        'files stay in the page cache). reader cpu: the reader\'s own getrusage, the producer not counted. The ceiling of a ' +
        'round is the fastest of its readers in that round: each does less work than the capture, so the capture ' +
        'reaching above it on a quiet machine would mean a broken measurement.',
      'dd | cat >/dev/null runs under taskset -c 0, so both ends share one CPU (its speed on two CPUs swings with ' +
        'scheduling); shown beside each row as a ratio, never a baseline.',
      'host cpu: process.cpuUsage of this process, every thread (main, Piscina workers, reactor threads); runner cpu: ' +
        `the fork servers' and the command's runner's own utime + stime from /proc/<pid>/stat every ${SAMPLE_MS} ms ` +
        "and at the run's end, counted from the run's start (a floor; the sampler's own reads count in host cpu). " +
        'dd is not counted.',
      'Defaults: each run checks the 64000-byte tail and that the spill file holds 1 GiB, then closes its session, ' +
        'which removes the file (outside the timed span). Nothing is fsynced.',
      `Kept files (no target): after the rounds, ${KEPT_ROUNDS} more rounds in which every file stays on disk and in ` +
        "the page cache until the last (the runtime's sessions stay open), as a server keeps its sessions' spill " +
        'files, so each GiB is written into memory that was not freed moments before. On a virtual machine that hands ' +
        'freed memory back to its host, that memory is faulted back in under every writer of the page cache; an ' +
        'O_DIRECT file takes none. cpu s/GiB: the reader\'s own, or host + runner.',
    ],
  };
}
