// Spaced-spawn suite: `true` through createRuntime()'s bash tool against a bare child_process.spawn when calls come
// apart, as an agent's do (50 ms of quiet before each), not back to back: what a call pays that a burst hides (a
// per-command cgroup move costs an RCU grace period whenever no other move happened just before).
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { createRuntime } from '../../src/index.js';
import { asyncRounds } from '../lib/async-rounds.js';
import { bareSpawn } from '../lib/js-capture.js';
import { spread } from '../lib/percentiles.js';
import { p50Figure } from '../lib/p50-figure.js';
import { withRatios, type Figure } from '../lib/rows.js';
import type { SuiteResult } from '../lib/types.js';

const TOOL = "createRuntime() bash tool: 'true'";
const BARE = "child_process.spawn('bash', ['-c', 'true'])";
const GAP_MS = 50;
const ROUNDS = 5;
const PER_ROUND = 20;

/** `PER_ROUND` calls, each after `GAP_MS` of quiet; the call alone is timed. */
async function spaced(once: () => Promise<void>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < PER_ROUND; i++) {
    await sleep(GAP_MS);
    const t0 = performance.now();
    await once();
    ms.push(performance.now() - t0);
  }
  return ms;
}

export async function run(): Promise<SuiteResult> {
  const runtime = await createRuntime();
  try {
    const session = runtime.session({ id: 'bench-spaced' });
    const tool = async () => {
      const result = await session.callTool('bash', { command: 'true', description: 'noop' });
      if (result.isError || result.content[0]?.text !== '(no output)') throw new Error(`bash tool: ${JSON.stringify(result.content)}`);
    };
    const bare = async () => {
      const code = await bareSpawn('true');
      if (code !== 0) throw new Error(`bare spawn: exit ${code}`);
    };
    for (let i = 0; i < 10; i++) {
      await tool();
      await bare();
    }
    const rounds = await asyncRounds(
      [
        { name: TOOL, once: () => spaced(tool) },
        { name: BARE, once: () => spaced(bare) },
      ],
      ROUNDS,
    );
    const figure = (name: string): Figure => p50Figure(name, rounds, BARE, { 'p99 ms': spread(rounds.get(name)!.flat()).p99 });
    return {
      name: 'spaced-spawn',
      description: `\`true\` through createRuntime()'s bash tool vs a bare child_process.spawn, ${GAP_MS} ms apart`,
      tables: [{ title: `\`true\`, one call every ${GAP_MS} ms, from a small host`, rows: withRatios([figure(BARE), figure(TOOL)]) }],
      targets: [],
      notes: [
        `${ROUNDS} rounds x ${PER_ROUND} calls per case, order rotated per round, each call after ${GAP_MS} ms of quiet; ratio = median of per-round p50 ratios.`,
      ],
    };
  } finally {
    await runtime.close();
  }
}
