// Runs 1 GiB streams case by case, interleaved over rounds, and reduces them to median figures.
import type { Figure } from './rows.js';
import type { Timing } from './timed.js';
import { mbPerSecond, median } from './units.js';

export interface StreamCase {
  name: string;
  baseline?: string;
  /** One full run over the stream; throws when the result is not what the run should produce. */
  once: () => Timing;
}

/**
 * Runs every case `rounds` times, rotating the order each round so a slow spell on a shared machine (or the
 * disk's writeback of an earlier run) does not always land on the same case. The figure is the median run.
 */
export function runRounds(cases: readonly StreamCase[], bytes: number, rounds: number): Figure[] {
  const timings = new Map<string, Timing[]>(cases.map((c) => [c.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < cases.length; k++) {
      const c = cases[(k + round) % cases.length]!;
      timings.get(c.name)!.push(c.once());
    }
  }
  return cases.map((c) => {
    const runs = timings.get(c.name)!;
    const rates = runs.map((t) => mbPerSecond(bytes, t.wallMs));
    const cpus = runs.map((t) => t.cpuMs).filter((ms): ms is number => ms !== null);
    const figure: Figure = {
      name: c.name,
      value: median(rates),
      unit: 'MB/s',
      extra: {
        'wall s': median(runs.map((t) => t.wallMs)) / 1000,
        'cpu s': cpus.length === runs.length ? median(cpus) / 1000 : '-',
        'runs MB/s': rates,
      },
    };
    if (c.baseline !== undefined) figure.baseline = c.baseline;
    return figure;
  });
}
