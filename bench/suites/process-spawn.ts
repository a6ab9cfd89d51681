// Process-spawn suite: what starting a command costs through createRuntime()'s bash tool, against a bare
// child_process.spawn of `bash -c true` from the same host, in a small host and in one holding 150 MiB of heap.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { atMost } from '../lib/at-most.js';
import { roundRatios } from '../lib/async-rounds.js';
import { spread } from '../lib/percentiles.js';
import { target, withRatios, type Figure } from '../lib/rows.js';
import { BARE, TOOL, type SpawnChildReport } from '../lib/spawn-child.js';
import type { SuiteResult, Table, Target } from '../lib/types.js';
import { fmt, median } from '../lib/units.js';

const CHILD = fileURLToPath(new URL('../lib/spawn-child.js', import.meta.url));
const HOSTS = [0, 150];

function host(heldMiB: number): SpawnChildReport {
  const out = execFileSync(process.execPath, ['--max-old-space-size=4096', CHILD, String(heldMiB)], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out.trim().split('\n').at(-1)!) as SpawnChildReport;
}

export async function run(): Promise<SuiteResult> {
  const tables: Table[] = [];
  const targets: Target[] = [];
  for (const heldMiB of HOSTS) {
    const report = host(heldMiB);
    const where = heldMiB === 0 ? 'a small host' : `a host holding ${heldMiB} MiB of heap`;
    const latency = (name: string): Figure => {
      const all = spread(report.latency[name]!.ms);
      const f: Figure = { name, value: all.p50, unit: 'p50 ms', extra: { 'p99 ms': all.p99, 'rounds p50 ms': report.latency[name]!.roundP50 } };
      if (name === TOOL) {
        f.baseline = BARE;
        f.ratio = median(roundRatios(report.latency[TOOL]!.roundP50, report.latency[BARE]!.roundP50));
      }
      return f;
    };
    const latencyRows = withRatios([latency(BARE), latency(TOOL)]);
    tables.push({ title: `\`true\`, one call at a time, from ${where}`, rows: latencyRows });
    const rate = (name: string): Figure => {
      const rounds = report.rate[name]!;
      const f: Figure = { name, value: median(rounds), unit: 'commands/s', extra: { min: Math.min(...rounds), max: Math.max(...rounds), rounds } };
      if (name === TOOL) {
        f.baseline = BARE;
        f.ratio = median(roundRatios(report.rate[TOOL]!, report.rate[BARE]!));
      }
      return f;
    };
    const rateRows = withRatios([rate(BARE), rate(TOOL)]);
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
      'Each host is a fresh node process (bench/lib/spawn-child.js <held MiB>) with createRuntime() defaults; the held heap is small objects.',
      'Latency: 5 rounds x 40 sequential calls per case, order rotated per round, after 20 warm-up calls each; ratio = median of per-round p50 ratios.',
      'Rate: 5 rounds of 320 commands with 32 in flight per case (the tool spreads them over 32 sessions); ratio = median of per-round ratios.',
    ],
  };
}
