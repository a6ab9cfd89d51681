// A target that holds when a figure does not exceed its threshold (rows.ts's `target` offers >= and <).
import type { Target } from './types.js';

export function atMost(claim: string, value: number, threshold: number, figure: string): Target {
  return { claim, met: value <= threshold, figure, value, threshold };
}
