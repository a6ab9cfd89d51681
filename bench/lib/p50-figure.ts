// A figure of latencies sampled in rounds: their p50, each round's p50, and against a baseline the median of the
// per-round p50 ratios (a ratio within a round cancels what the machine did in that round).
import { roundRatios } from './async-rounds.js';
import { spread } from './percentiles.js';
import type { Figure } from './rows.js';
import type { Extra } from './types.js';
import { median } from './units.js';

const p50 = (ms: number[]): number => spread(ms).p50;

/** `rounds` holds each case's samples, one array per round; `extra` goes before the rounds' p50s. */
export function p50Figure(name: string, rounds: ReadonlyMap<string, number[][]>, baseline: string, extra: Record<string, Extra> = {}): Figure {
  const all = rounds.get(name)!;
  const figure: Figure = { name, value: p50(all.flat()), unit: 'p50 ms', extra: { ...extra, 'rounds p50 ms': all.map(p50) } };
  if (name !== baseline) {
    figure.baseline = baseline;
    figure.ratio = median(roundRatios(all.map(p50), rounds.get(baseline)!.map(p50)));
  }
  return figure;
}
