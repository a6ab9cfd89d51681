// Builds a table's rows with each figure's ratio to its baseline, and the verdict of a target.
import type { Extra, Row, Target } from './types.js';

export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** The row to compare with; omitted for a baseline itself. */
  baseline?: string;
  /** A ratio measured directly (e.g. the median of per-round ratios); otherwise `value / baseline value`. */
  ratio?: number;
  extra?: Record<string, Extra>;
}

/** Resolves every figure's baseline by name within the same list (a baseline compares with itself). */
export function withRatios(figures: readonly Figure[]): Row[] {
  const byName = new Map(figures.map((f) => [f.name, f]));
  return figures.map((f) => {
    const baseName = f.baseline ?? f.name;
    const base = byName.get(baseName);
    if (base === undefined) throw new Error(`figure ${f.name}: no baseline named ${baseName}`);
    const ratio = f.ratio ?? f.value / base.value;
    const row: Row = { name: f.name, value: f.value, unit: f.unit, baseline: baseName, ratio };
    if (f.extra !== undefined) row.extra = f.extra;
    return row;
  });
}

export function find(rows: readonly Row[], name: string): Row {
  const row = rows.find((r) => r.name === name);
  if (row === undefined) throw new Error(`no row named ${name}`);
  return row;
}

/** A target "value >= threshold" (or "< threshold" with `below`), worded with the figure it was judged on. */
export function target(claim: string, value: number, threshold: number, figure: string, below = false): Target {
  return { claim, met: below ? value < threshold : value >= threshold, figure, value, threshold };
}
