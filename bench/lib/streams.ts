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
 * disk's writeback of an earlier run) does not always land on the same case.
 *
 * The figure is the median run. The ratio is the median of per-round ratios, each case against its baseline's
 * run in the same round: neighbours in time share the machine's state, so this ratio holds up better than one
 * of two medians when other work comes and goes.
 */
export function runRounds(cases: readonly StreamCase[], bytes: number, rounds: number): Figure[] {
  const timings = new Map<string, Timing[]>(cases.map((c) => [c.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < cases.length; k++) {
      const c = cases[(k + round) % cases.length]!;
      timings.get(c.name)!.push(c.once());
    }
  }
  const rates = (name: string): number[] => timings.get(name)!.map((t) => mbPerSecond(bytes, t.wallMs));
  return cases.map((c) => {
    const runs = timings.get(c.name)!;
    const own = rates(c.name);
    const cpus = runs.map((t) => t.cpuMs).filter((ms): ms is number => ms !== null);
    const figure: Figure = {
      name: c.name,
      value: median(own),
      unit: 'MB/s',
      extra: {
        'wall s': median(runs.map((t) => t.wallMs)) / 1000,
        'cpu s': cpus.length === runs.length ? median(cpus) / 1000 : '-',
        'runs MB/s': own,
      },
    };
    if (c.baseline !== undefined) {
      const base = rates(c.baseline);
      figure.baseline = c.baseline;
      figure.ratio = median(own.map((rate, round) => rate / base[round]!));
    }
    return figure;
  });
}
