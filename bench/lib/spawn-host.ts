// Runs the shared spawn host (spawn-child.js) in a fresh node process and reads its report; with its p50 and rate
// figures, each beside the bare spawn measured in the same rounds.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { roundRatios } from './async-rounds.js';
import { spread } from './percentiles.js';
import type { Figure } from './rows.js';
import { BARE, type SpawnChildReport } from './spawn-child.js';
import { median } from './units.js';

const CHILD = fileURLToPath(new URL('./spawn-child.js', import.meta.url));

export function spawnHost(heldMiB: number): SpawnChildReport {
  const out = execFileSync(process.execPath, ['--max-old-space-size=4096', CHILD, String(heldMiB)], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out.trim().split('\n').at(-1)!) as SpawnChildReport;
}

/** One case's latency: p50 over every call, its ratio to the bare spawn the median of per-round p50 ratios. */
export function latencyFigure(report: SpawnChildReport, name: string): Figure {
  const all = spread(report.latency[name]!.ms);
  const f: Figure = { name, value: all.p50, unit: 'p50 ms', extra: { 'p99 ms': all.p99, 'rounds p50 ms': report.latency[name]!.roundP50 } };
  if (name !== BARE) {
    f.baseline = BARE;
    f.ratio = median(roundRatios(report.latency[name]!.roundP50, report.latency[BARE]!.roundP50));
  }
  return f;
}

/** One case's rate with 32 in flight, its ratio to the bare spawn the median of per-round ratios. */
export function rateFigure(report: SpawnChildReport, name: string): Figure {
  const rounds = report.rate[name]!;
  const f: Figure = { name, value: median(rounds), unit: 'commands/s', extra: { min: Math.min(...rounds), max: Math.max(...rounds), rounds } };
  if (name !== BARE) {
    f.baseline = BARE;
    f.ratio = median(roundRatios(rounds, report.rate[BARE]!));
  }
  return f;
}
