// Process-spawn suite: what starting a command costs through createRuntime()'s bash tool, against a bare
// child_process.spawn of `bash -c true` from the same host, in a small host and in one holding 150 MiB of heap.
import { atMost } from '../lib/at-most.js';
import { target, withRatios } from '../lib/rows.js';
import { BARE, TOOL } from '../lib/spawn-child.js';
import { latencyFigure, rateFigure, spawnHost } from '../lib/spawn-host.js';
import type { SuiteResult, Table, Target } from '../lib/types.js';
import { fmt } from '../lib/units.js';

const HOSTS = [0, 150];

export async function run(): Promise<SuiteResult> {
  const tables: Table[] = [];
  const targets: Target[] = [];
  for (const heldMiB of HOSTS) {
    const report = spawnHost(heldMiB);
    const where = heldMiB === 0 ? 'a small host' : `a host holding ${heldMiB} MiB of heap`;
    const latencyRows = withRatios([latencyFigure(report, BARE), latencyFigure(report, TOOL)]);
    tables.push({ title: `\`true\`, one call at a time, from ${where}`, rows: latencyRows });
    const rateRows = withRatios([rateFigure(report, BARE), rateFigure(report, TOOL)]);
    tables.push({ title: `short commands (\`true\`) with 32 in flight, from ${where}`, rows: rateRows });
    const latencyRatio = latencyRows[1]!.ratio;
    const limit = heldMiB === 0 ? 1.0 : 0.5;
    targets.push(
      atMost(
        `bash tool \`true\` p50 <= ${limit}x a bare spawn from ${where}`,
        latencyRatio,
        limit,
        `${fmt(latencyRatio)}x (${fmt(latencyRows[1]!.value)} vs ${fmt(latencyRows[0]!.value)} ms)`,
      ),
    );
    if (heldMiB === 0) {
      const rateRatio = rateRows[1]!.ratio;
      targets.push(
        target(
          'short commands/s with 32 in flight >= 1.0x a bare spawn',
          rateRatio,
          1.0,
          `${fmt(rateRatio)}x (${fmt(rateRows[1]!.value)} vs ${fmt(rateRows[0]!.value)} commands/s)`,
        ),
      );
    }
  }
  return {
    name: 'process-spawn',
    description: "starting `true` through createRuntime()'s bash tool vs a bare child_process.spawn, small host and 150 MiB heap",
    tables,
    targets,
    notes: [
      'Each host is a fresh node process (bench/lib/spawn-child.js <held MiB>) with createRuntime() defaults; the held heap is small objects. ' +
        'The bare spawn is the same baseline, measured the same way, as in executor-latency.',
      'Latency: 5 rounds x 40 sequential calls per case, order rotated per round, after 20 warm-up calls each; ratio = median of per-round p50 ratios.',
      'Rate: 5 rounds of 320 commands with 32 in flight per case (the tool spreads them over 32 sessions); ratio = median of per-round ratios.',
    ],
  };
}
