// Job ids `<kind>-<n>`: counted per kind across the whole process, never reused.

const counters = new Map<string, number>();

export function nextJobId(kind: string): string {
  const n = (counters.get(kind) ?? 0) + 1;
  counters.set(kind, n);
  return `${kind}-${n}`;
}
