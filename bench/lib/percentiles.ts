// Percentiles of latency samples (nearest rank), in the unit the samples were taken in.

/** The nearest-rank percentile `p` (0..100) of `values`; NaN for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export interface Spread {
  p50: number;
  p99: number;
  max: number;
}

export function spread(values: readonly number[]): Spread {
  return { p50: percentile(values, 50), p99: percentile(values, 99), max: percentile(values, 100) };
}
