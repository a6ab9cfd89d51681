// Byte sizes and the rate arithmetic shared by the suites (MB = 10^6 bytes, as dd reports them).

export const KiB = 1024;
export const MiB = 1024 * KiB;
export const GiB = 1024 * MiB;

/** Throughput in MB/s (10^6 bytes per second). */
export function mbPerSecond(bytes: number, ms: number): number {
  return bytes / 1e6 / (ms / 1000);
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A readable number: no decimals once large, three significant digits when small. */
export function fmt(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 100) return Math.round(value).toLocaleString('en-US');
  if (abs >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

export function pct(ratio: number): string {
  return `${(ratio * 100).toFixed(1)}%`;
}

/** Four significant digits for the JSON file, so reruns differ by figure, not by float noise. */
export function round(value: number): number {
  return Number.isInteger(value) || !Number.isFinite(value) ? value : Number(value.toPrecision(4));
}
