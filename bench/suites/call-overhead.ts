// Call overhead suite: what the bash tool adds per call (validation, DSH_* env, job registration, rendering) over
// the executor's bare run of the same `true`, one call at a time.
import { sequentialMs } from '../lib/timed.js';
import { createRuntime, type Runtime, type Session } from '../../src/index.js';
import { atMost } from '../lib/at-most.js';
import { asyncRounds, roundRatios, type AsyncCase } from '../lib/async-rounds.js';
import { spread } from '../lib/percentiles.js';
import { find, withRatios, type Figure } from '../lib/rows.js';
import type { SuiteResult } from '../lib/types.js';
import { fmt, median } from '../lib/units.js';

const EXECUTOR = 'runtime.executor.run(resolve(true))';
const TOOL = "session.callTool('bash', true)";
const TOOL_NO_JOBS = "session.callTool('bash', true), jobs: false";
const ROUNDS = 4;
const PER_ROUND = 50;
const WARMUP = 20;
/** The tool's own work is main-thread JavaScript; a process spawn costs milliseconds. */
const TARGET_ADDED_MS = 1;

type Once = () => Promise<void>;

function executorRun(runtime: Runtime): Once {
  return async () => {
    const result = await runtime.executor.run(runtime.executor.resolve({ command: 'true' }));
    if (result.exitCode !== 0) throw new Error(`executor: exit ${result.exitCode}`);
  };
}

function toolCall(session: Session): Once {
  return async () => {
    const result = await session.callTool('bash', { command: 'true', description: 'noop' });
    const text = result.content[0]?.text;
    if (result.isError || text !== '(no output)') throw new Error(`bash tool: ${JSON.stringify(text)}`);
  };
}

function timed(once: Once): AsyncCase<number[]>['once'] {
  return () => sequentialMs(once, PER_ROUND);
}

export async function run(): Promise<SuiteResult> {
  const runtime = await createRuntime({});
  const foregroundOnly = await createRuntime({ jobs: false });
  let rows;
  try {
    const cases: [string, Once][] = [
      [EXECUTOR, executorRun(runtime)],
      [TOOL, toolCall(runtime.session({ id: 'bench-call-overhead' }))],
      [TOOL_NO_JOBS, toolCall(foregroundOnly.session({ id: 'bench-call-overhead' }))],
    ];
    for (let i = 0; i < WARMUP; i++) for (const [, once] of cases) await once();
    const rounds = await asyncRounds(
      cases.map(([name, once]) => ({ name, once: timed(once) })),
      ROUNDS,
    );
    const base = spread(rounds.get(EXECUTOR)!.flat());
    const p50s = (name: string): number[] => rounds.get(name)!.map((ms) => spread(ms).p50);
    const figures = cases.map(([name]): Figure => {
      const all = spread(rounds.get(name)!.flat());
      const f: Figure = {
        name,
        value: all.p50,
        unit: 'p50 ms',
        extra: {
          'p99 ms': all.p99,
          'added p50 ms': all.p50 - base.p50,
          'added p99 ms': all.p99 - base.p99,
          calls: rounds.get(name)!.flat().length,
          'rounds p50 ms': p50s(name),
        },
      };
      if (name !== EXECUTOR) {
        f.baseline = EXECUTOR;
        f.ratio = median(roundRatios(p50s(name), p50s(EXECUTOR)));
      }
      return f;
    });
    rows = withRatios(figures);
  } finally {
    await Promise.all([runtime.close(), foregroundOnly.close()]);
  }
  const tool = find(rows, TOOL);
  const bare = find(rows, EXECUTOR);
  const added = tool.extra!['added p50 ms'] as number;
  return {
    name: 'call-overhead',
    description: "per-call overhead of session.callTool('bash', {command: 'true'}) over the executor's bare run",
    tables: [{ title: `latency of \`true\`, one call at a time (${ROUNDS} x ${PER_ROUND} calls each)`, rows }],
    targets: [
      atMost(
        `bash tool adds <= ${TARGET_ADDED_MS} ms per call over executor.run (p50)`,
        added,
        TARGET_ADDED_MS,
        `${added < 0 ? '' : '+'}${fmt(added)} ms (p50 ${fmt(tool.value)} vs ${fmt(bare.value)} ms; p99 ${fmt(tool.extra!['p99 ms'] as number)} vs ${fmt(bare.extra!['p99 ms'] as number)} ms)`,
      ),
    ],
    notes: [
      `Each case: ${ROUNDS} rounds of ${PER_ROUND} sequential calls, order rotated per round, after ${WARMUP} warm-up calls each; ` +
        'p50/p99 over all calls; ratio = median of per-round p50 ratios; added = p50 (p99) minus the executor\'s.',
      'Tool, default runtime: the call registers a foreground job (ring capture, registry events) and waits on its handle. ' +
        'Tool, jobs: false: validation, env and rendering over executor.run, no job. Executor: the same runtime\'s pool ' +
        '(2 worker threads), spawn to result.',
    ],
  };
}
