// Commands-weight suite: what `executor.limits.commandsCpuWeight` trades. The default (100) against 10: the event
// loop under the accumulating load of the event-loop suite, and a CPU-bound command's wall time while other work
// keeps the host's cores busy.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRuntime, type Runtime } from '../../src/index.js';
import { asyncRounds, roundRatios } from '../lib/async-rounds.js';
import { bareSpawn } from '../lib/js-capture.js';
import { withLoopDelay } from '../lib/loop-delay.js';
import type { Spread } from '../lib/percentiles.js';
import { sequentialMs } from '../lib/timed.js';
import { p50Figure } from '../lib/p50-figure.js';
import { withRatios, type Figure } from '../lib/rows.js';
import type { SuiteResult } from '../lib/types.js';
import { median, MiB } from '../lib/units.js';

const WEIGHTS = [100, 10] as const;
const ROUNDS = 3;
const BUSY_LOOPS = 2;
const PER_ROUND = 11;
/** About 0.1 s of one core: long enough that a share of the CPU, not the spawn, decides its wall time. */
const CPU_BOUND = 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done';
const BARE = 'child_process.spawn, from this process';

const name = (weight: number): string => `commandsCpuWeight ${weight}${weight === 100 ? ' (default)' : ''}`;

/** 1–10 MiB, as in the event-loop suite's accumulating load. */
const sizeOf = (i: number): number => MiB + ((Math.imul(i + 1, 2654435761) >>> 0) % (9 * MiB));

/** One round of 100 new sessions x 4 commands; the sessions stay open (their spill files on disk) until the end. */
async function accumulatingRound(runtime: Runtime, tag: string): Promise<Spread> {
  const { delay } = await withLoopDelay(async () => {
    await Promise.all(
      Array.from({ length: 400 }, async (_, i) => {
        const result = await runtime.session({ id: `s-${i >> 2}-${tag}` }).callTool('bash', { command: `head -c ${sizeOf(i)} /dev/zero`, description: 'print' });
        if (result.isError) throw new Error(`bash tool: ${JSON.stringify(result.content).slice(0, 200)}`);
      }),
    );
  });
  return delay;
}

/** Busy loops in sessions of their own (own autogroups), as other work on the host would be: started stopped, before
 * any runtime, so they stay where this process was and not beside the runtimes' commands (server-placement.ts). */
function busyLoops(): ChildProcess[] {
  return Array.from({ length: BUSY_LOOPS }, () => spawn('bash', ['-c', 'kill -STOP $$; while :; do :; done'], { detached: true, stdio: 'ignore' }));
}

const signalAll = (loops: ChildProcess[], signal: NodeJS.Signals): void => {
  for (const child of loops) process.kill(-child.pid!, signal);
};

export async function run(): Promise<SuiteResult> {
  const runtimes = new Map<number, Runtime>();
  const loops = busyLoops();
  try {
    for (const weight of WEIGHTS) runtimes.set(weight, await createRuntime({ executor: { limits: { commandsCpuWeight: weight } } }));
    // Whether commands land in the runtime's weighted cgroup here (a cpu hierarchy this process may write).
    const probe = await runtimes.get(100)!.session({ id: 'probe' }).callTool('bash', { command: 'grep -c shellring- /proc/self/cgroup', description: 'probe' });
    const weighted = probe.content[0]?.text.startsWith('0') === false;

    let round = 0;
    const loop = await asyncRounds(
      WEIGHTS.map((weight) => ({ name: name(weight), once: () => accumulatingRound(runtimes.get(weight)!, `w${weight}-r${++round}`) })),
      ROUNDS,
    );
    const loopFigure = (weight: number): Figure => {
      const list = loop.get(name(weight))!;
      const f: Figure = {
        name: name(weight),
        value: median(list.map((d) => d.p99)),
        unit: 'p99 ms',
        extra: { 'worst max ms': Math.max(...list.map((d) => d.max)), 'runs max ms': list.map((d) => d.max) },
      };
      if (weight !== 100) {
        f.baseline = name(100);
        f.ratio = median(roundRatios(list.map((d) => d.p99), loop.get(name(100))!.map((d) => d.p99)));
      }
      return f;
    };

    signalAll(loops, 'SIGCONT');
    let busy: Map<string, number[][]>;
    try {
      const tool = (weight: number) => async () => {
        const result = await runtimes.get(weight)!.session({ id: `cpu-${weight}` }).callTool('bash', { command: CPU_BOUND, description: 'count' });
        if (result.isError) throw new Error(`bash tool: ${JSON.stringify(result.content).slice(0, 200)}`);
      };
      const bare = async () => {
        const code = await bareSpawn(CPU_BOUND);
        if (code !== 0) throw new Error(`bare spawn: exit ${code}`);
      };
      busy = await asyncRounds(
        [{ name: BARE, once: () => sequentialMs(bare, PER_ROUND) }, ...WEIGHTS.map((weight) => ({ name: name(weight), once: () => sequentialMs(tool(weight), PER_ROUND) }))],
        ROUNDS,
      );
    } finally {
      signalAll(loops, 'SIGSTOP');
    }
    const busyFigure = (key: string): Figure => p50Figure(key, busy, BARE);

    return {
      name: 'commands-weight',
      description: 'what executor.limits.commandsCpuWeight trades: the event loop under load against commands\' share of a busy host',
      tables: [
        { title: 'event-loop delay, 100 new sessions x 4 commands of 1–10 MiB per round, earlier rounds\' sessions kept', rows: withRatios(WEIGHTS.map(loopFigure)) },
        { title: `a CPU-bound command (\`${CPU_BOUND}\`) while ${BUSY_LOOPS} busy loops run in sessions of their own`, rows: withRatios([busyFigure(BARE), ...WEIGHTS.map((w) => busyFigure(name(w)))]) },
      ],
      targets: [],
      notes: [
        weighted
          ? 'Commands ran in the runtime\'s weighted cpu cgroup.'
          : 'Commands did not run in a weighted cgroup here (no cpu hierarchy this process may write: README, Scheduling): both weights ran alike.',
        `Two runtimes, one per weight, alternate round by round (${ROUNDS} rounds); each keeps its own rounds' sessions open until the end.`,
        `Busy host: ${BUSY_LOOPS} shell loops started with setsid before the runtimes (so not beside their commands), one autogroup each; ${PER_ROUND} sequential commands per case and round, order rotated; ratio = median of per-round p50 ratios.`,
      ],
    };
  } finally {
    signalAll(loops, 'SIGKILL');
    await Promise.all([...runtimes.values()].map((r) => r.close()));
  }
}
