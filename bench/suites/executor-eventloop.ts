// Event-loop suite: the host's loop delay while the bash tool of createRuntime() (its defaults: job registry,
// promotion, spill files) runs 32 commands x 100 MiB, and 100 sessions x 4 commands of 1–10 MiB (fresh sessions
// each round, and again with every earlier round's sessions and spill files kept), against child_process on the
// main thread running the same commands.
import { createRuntime, type Runtime } from '../../src/index.js';
import { atMost } from '../lib/at-most.js';
import { asyncRounds, roundRatios, type AsyncCase } from '../lib/async-rounds.js';
import { jsCapture } from '../lib/js-capture.js';
import { LOOP_RESOLUTION_MS, withLoopDelay } from '../lib/loop-delay.js';
import type { Spread } from '../lib/percentiles.js';
import { mainThreadSched, schedSince, type Sched } from '../lib/schedstat.js';
import { find, withRatios, type Figure } from '../lib/rows.js';
import type { SuiteResult, Table } from '../lib/types.js';
import { fmt, median, MiB } from '../lib/units.js';

const CAP = 64000;
const ROUNDS = 3;
const TARGET_P99_MS = 5;
const TARGET_MAX_MS = 25;
const TARGET_SESSIONS_MAX_MS = 50;

interface Sample {
  delay: Spread;
  wallMs: number;
  /** The main thread's own CPU time and its time runnable but waiting for a CPU. */
  sched: Sched | null;
}

/** One load: commands, each with the session it runs in and the bytes it prints. */
interface Load {
  title: string;
  runtimeName: string;
  jsName: string;
  commands: { session: string; bytes: number }[];
  /** Earlier rounds' sessions stay open, their spill files on disk, until the load's last round is over. */
  accumulate?: boolean;
}

const wide: Load = {
  title: '32 commands printing 100 MiB each at once',
  runtimeName: 'bash tool (createRuntime defaults), 32 x 100 MiB',
  jsName: 'child_process + JS tail, 32 x 100 MiB',
  commands: Array.from({ length: 32 }, (_, i) => ({ session: `wide-${i % 4}`, bytes: 100 * MiB })),
};

/** 1–10 MiB, fixed per command so every round runs the same load. */
const sizeOf = (i: number): number => MiB + ((Math.imul(i + 1, 2654435761) >>> 0) % (9 * MiB));

const sessions: Load = {
  title: '100 sessions x 4 commands of 1–10 MiB at once',
  runtimeName: 'bash tool (createRuntime defaults), 100 sessions x 4',
  jsName: 'child_process + JS tail, 100 sessions x 4',
  commands: Array.from({ length: 400 }, (_, i) => ({ session: `s-${i >> 2}`, bytes: sizeOf(i) })),
};

const accumulating: Load = {
  ...sessions,
  title: '100 new sessions x 4 commands of 1–10 MiB each round, earlier rounds\' sessions and spill files kept',
  runtimeName: 'bash tool (createRuntime defaults), 100 new sessions x 4, accumulating',
  jsName: 'child_process + JS tail, 100 sessions x 4 (accumulating)',
  accumulate: true,
};

/** Sessions of accumulating rounds, closed once their load is measured. */
const kept: string[] = [];

const produce = (bytes: number): string => `head -c ${bytes} /dev/zero`;

async function timedDelay(body: () => Promise<void>): Promise<Sample> {
  let sched = mainThreadSched();
  let start = 0;
  const { delay } = await withLoopDelay(() => {
    sched = mainThreadSched();
    start = performance.now();
    return body();
  });
  return { delay, wallMs: performance.now() - start, sched: schedSince(sched) };
}

let round = 0;

function cases(runtime: Runtime, load: Load, scale = 1): AsyncCase<Sample>[] {
  const commands = load.commands.map((c) => ({ ...c, bytes: Math.max(1, Math.floor(c.bytes * scale)) }));
  return [
    {
      name: load.jsName,
      once: () =>
        timedDelay(async () => {
          // Checked as each comes, as the runtime's results are.
          await Promise.all(
            commands.map(async (c) => {
              const r = await jsCapture(produce(c.bytes), CAP);
              if (r.code !== 0 || r.stdoutBytes !== c.bytes) throw new Error(`child_process: exit ${r.code}, ${r.stdoutBytes} bytes`);
            }),
          );
        }),
    },
    {
      name: load.runtimeName,
      once: async () => {
        const tag = ++round;
        const ids = [...new Set(commands.map((c) => `${c.session}-r${tag}`))];
        const sample = await timedDelay(async () => {
          // Each result is checked as it comes and then dropped, as a server sends one and lets it go: held to the
          // round's end, 400 texts of 64 KB would be the suite's own load on the collector, not the runtime's.
          await Promise.all(
            commands.map(async (c) => {
              const result = await runtime.session({ id: `${c.session}-r${tag}` }).callTool('bash', { command: produce(c.bytes), description: 'print' });
              const text = result.content.map((part) => part.text).join('');
              if (!/^\0*(\n\[output truncated; full output: [^\]]+\])?$/.test(text)) throw new Error(`runtime: ${text.slice(-200)}`);
            }),
          );
        });
        // Closing the sessions removes their spill files, outside the measured span.
        if (load.accumulate) kept.push(...ids);
        else await Promise.all(ids.map((id) => runtime.session({ id }).close()));
        return sample;
      },
    },
  ];
}

function figures(samples: Map<string, Sample[]>, load: Load): Figure[] {
  const figure = (name: string, baseline?: string): Figure => {
    const list = samples.get(name)!;
    const f: Figure = {
      name,
      value: median(list.map((s) => s.delay.p99)),
      unit: 'p99 ms',
      extra: {
        'p50 ms': median(list.map((s) => s.delay.p50)),
        'max ms': median(list.map((s) => s.delay.max)),
        'worst max ms': Math.max(...list.map((s) => s.delay.max)),
        'wall s': median(list.map((s) => s.wallMs)) / 1000,
        'main cpu ms': list.every((s) => s.sched) ? median(list.map((s) => s.sched!.cpuMs)) : '-',
        'main runq wait ms': list.every((s) => s.sched) ? median(list.map((s) => s.sched!.waitMs)) : '-',
        'main wakes': list.every((s) => s.sched) ? median(list.map((s) => s.sched!.slices)) : '-',
        'runs max ms': list.map((s) => s.delay.max),
      },
    };
    if (baseline !== undefined) {
      f.baseline = baseline;
      const p99 = (k: string): number[] => samples.get(k)!.map((s) => s.delay.p99);
      f.ratio = median(roundRatios(p99(name), p99(baseline)));
    }
    return f;
  };
  return [figure(load.jsName), figure(load.runtimeName, load.jsName)];
}

export async function run(): Promise<SuiteResult> {
  const runtime = await createRuntime({});
  const tables: Table[] = [];
  try {
    // A short pass first (1/100 of the bytes): worker start-up and JIT are not part of the figures.
    for (const load of [wide, sessions]) await asyncRounds(cases(runtime, load, 0.01), 1);
    for (const load of [wide, sessions, accumulating]) {
      tables.push({ title: load.title, rows: withRatios(figures(await asyncRounds(cases(runtime, load), ROUNDS), load)) });
      await Promise.all(kept.splice(0).map((id) => runtime.session({ id }).close()));
    }
  } finally {
    await runtime.close();
  }
  const wideRow = find(tables[0]!.rows, wide.runtimeName);
  const wideBase = find(tables[0]!.rows, wide.jsName);
  const manyRow = find(tables[1]!.rows, sessions.runtimeName);
  const manyBase = find(tables[1]!.rows, sessions.jsName);
  const keptRow = find(tables[2]!.rows, accumulating.runtimeName);
  const keptBase = find(tables[2]!.rows, accumulating.jsName);
  const max = (row: typeof wideRow): number => row.extra!['max ms'] as number;
  const worst = (row: typeof wideRow): number => row.extra!['worst max ms'] as number;
  return {
    name: 'executor-eventloop',
    description: `host event-loop delay (monitorEventLoopDelay, resolution ${LOOP_RESOLUTION_MS} ms) while the bash tool of createRuntime() runs \`head -c N /dev/zero\``,
    tables,
    targets: [
      atMost(
        `bash tool, 32 x 100 MiB: event-loop delay p99 <= ${TARGET_P99_MS} ms`,
        wideRow.value,
        TARGET_P99_MS,
        `${fmt(wideRow.value)} ms (child_process on the main thread: ${fmt(wideBase.value)} ms)`,
      ),
      atMost(
        `bash tool, 32 x 100 MiB: event-loop delay max <= ${TARGET_MAX_MS} ms`,
        max(wideRow),
        TARGET_MAX_MS,
        `${fmt(max(wideRow))} ms, worst round ${fmt(worst(wideRow))} ms (child_process: ${fmt(max(wideBase))} ms)`,
      ),
      atMost(
        `bash tool, 100 sessions x 4 commands of 1–10 MiB: event-loop delay max <= ${TARGET_SESSIONS_MAX_MS} ms`,
        max(manyRow),
        TARGET_SESSIONS_MAX_MS,
        `${fmt(max(manyRow))} ms, worst round ${fmt(worst(manyRow))} ms, p99 ${fmt(manyRow.value)} ms ` +
          `(child_process: max ${fmt(max(manyBase))} ms, p99 ${fmt(manyBase.value)} ms)`,
      ),
      atMost(
        `bash tool, 100 new sessions x 4 per round, earlier rounds kept: event-loop delay max <= ${TARGET_SESSIONS_MAX_MS} ms`,
        worst(keptRow),
        TARGET_SESSIONS_MAX_MS,
        `worst round ${fmt(worst(keptRow))} ms, rounds ${(keptRow.extra!['runs max ms'] as number[]).map(fmt).join(', ')} ms ` +
          `(child_process: worst ${fmt(worst(keptBase))} ms)`,
      ),
      atMost(
        `bash tool, 100 new sessions x 4 per round, earlier rounds kept: event-loop delay p99 <= ${TARGET_P99_MS} ms`,
        keptRow.value,
        TARGET_P99_MS,
        `${fmt(keptRow.value)} ms (child_process: ${fmt(keptBase.value)} ms)`,
      ),
    ],
    notes: [
      `Each figure is the median over ${ROUNDS} rounds (runtime and child_process alternating first), after one pass ` +
        'at 1/100 of the bytes; the ratio is the median of per-round p99 ratios.',
      'Runtime: createRuntime({}) as a user gets it: job registry and promotion on, spill files on (2 GiB per stream, ' +
        '4 GiB per session), 2 supervisor workers. 32 x 100 MiB run in 4 sessions (8 each); 400 commands in 100 sessions. ' +
        'Each round uses fresh sessions, closed (spill files removed) after the measured span; in the accumulating ' +
        'load they stay open until its last round is over, so each round starts new sessions beside the earlier ones\' files.',
      `Delays are as monitorEventLoopDelay reports them: whole timer intervals, so an idle loop reads about ` +
        `${LOOP_RESOLUTION_MS} ms, not 0. The histogram covers the spawns, the output and the results; each result is ` +
        'checked as it comes and dropped (on both sides), as a server sends a result and lets it go. A round\'s calls ' +
        'are made after the monitor\'s first tick, which records nothing, so the turn that makes them all is counted ' +
        '(it is what the child_process side\'s maximum is: 400 spawns in one turn).',
      'main cpu / main runq wait: the main thread\'s own CPU time and its time runnable but waiting for a CPU ' +
        '(/proc/<pid>/task/<pid>/schedstat): a loop delay with little CPU and much waiting is the scheduler sharing ' +
        '2 cores among many busy processes, not work on the loop.',
      'main wakes: the times the main thread was put on a CPU. The delay monitor itself wakes the loop every ' +
        `${LOOP_RESOLUTION_MS} ms, so main cpu grows with the wall time of a load (about 0.1–0.2 ms per wake on a busy ` +
        '2-core VM): a longer round reads as more main-thread CPU without any more work per call ' +
        '(test/runtime/open-sessions-cost.test.ts holds that work equal with one session open and with many).',
      'child_process: spawn(bash -c) on the main thread, both pipes read in JS into a 64000-byte tail, no spill file.',
    ],
  };
}
