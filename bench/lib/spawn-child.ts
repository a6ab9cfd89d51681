// The one host every suite that compares with a bare spawn measures in, started as `node spawn-child.js <heldMiB>`:
// holds that much JS heap (as an agent server does), then times `true` through createRuntime()'s bash tool, through
// LocalExecutor.run and as a bare child_process.spawn in interleaved rounds, one at a time and 32 in flight; prints
// one JSON line. The bare spawn is thus one baseline, measured one way, for process-spawn and executor-latency.
import { performance } from 'node:perf_hooks';
import { sequentialMs } from './timed.js';
import { createRuntime, LocalExecutor, type Session } from '../../src/index.js';
import { asyncRounds } from './async-rounds.js';
import { bareSpawn } from './js-capture.js';
import { MiB } from './units.js';

export const TOOL = "createRuntime() bash tool: 'true'";
export const BARE = "child_process.spawn('bash', ['-c', 'true'])";
export const EXECUTOR = "LocalExecutor.run('true'), tail only";
const ROUNDS = 5;
const PER_ROUND = 40;
const IN_FLIGHT = 32;
const BURST = 320;

export interface SpawnChildReport {
  heldMiB: number;
  /** Per case: every call's latency in ms, and per round the p50. */
  latency: Record<string, { ms: number[]; roundP50: number[] }>;
  /** Per case: commands per second with IN_FLIGHT in flight, per round. */
  rate: Record<string, number[]>;
}

const held: unknown[] = [];

function hold(bytes: number): void {
  // Small objects, what a GC walks and what fork() must copy page tables for: ~64 bytes each with its slot.
  const perArray = 1 << 16;
  for (let made = 0; made < bytes; made += perArray * 64) {
    const objects = new Array(perArray);
    for (let i = 0; i < perArray; i++) objects[i] = { a: i, b: made, c: null, d: objects };
    held.push(objects);
  }
}

async function tool(session: Session): Promise<void> {
  const result = await session.callTool('bash', { command: 'true', description: 'noop' });
  if (result.isError || result.content[0]?.text !== '(no output)') throw new Error(`bash tool: ${JSON.stringify(result.content)}`);
}

async function direct(executor: LocalExecutor): Promise<void> {
  const result = await executor.run(executor.resolve({ command: 'true' }));
  if (result.exitCode !== 0) throw new Error(`executor: exit ${result.exitCode}`);
}

async function bare(): Promise<void> {
  const code = await bareSpawn('true');
  if (code !== 0) throw new Error(`bare spawn: exit ${code}`);
}

async function burst(once: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < BURST) await once(next++);
    }),
  );
  return BURST / ((performance.now() - t0) / 1000);
}

async function main(): Promise<void> {
  const heldMiB = Number(process.argv[2] ?? 0);
  hold(heldMiB * MiB);
  const runtime = await createRuntime();
  const executor = new LocalExecutor({ maxSpillBytes: 0 });
  try {
    const session = runtime.session({ id: 'bench-spawn' });
    const sessions = Array.from({ length: IN_FLIGHT }, (_, i) => runtime.session({ id: `bench-spawn-${i}` }));
    const cases = { [TOOL]: () => tool(session), [EXECUTOR]: () => direct(executor), [BARE]: bare };
    for (let i = 0; i < 20; i++) for (const once of Object.values(cases)) await once();
    const latency = await asyncRounds(
      Object.entries(cases).map(([name, once]) => ({
        name,
        once: () => sequentialMs(once, PER_ROUND),
      })),
      ROUNDS,
    );
    const rate = await asyncRounds(
      [
        { name: TOOL, once: () => burst((i) => tool(sessions[i % IN_FLIGHT]!)) },
        { name: EXECUTOR, once: () => burst(() => direct(executor)) },
        { name: BARE, once: () => burst(() => bare()) },
      ],
      ROUNDS,
    );
    const p50 = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.ceil(ms.length / 2) - 1]!;
    const report: SpawnChildReport = {
      heldMiB,
      latency: Object.fromEntries([...latency].map(([name, rounds]) => [name, { ms: rounds.flat(), roundP50: rounds.map(p50) }])),
      rate: Object.fromEntries(rate),
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    await Promise.all([runtime.close(), executor.close()]);
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) await main();
