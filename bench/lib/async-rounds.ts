// Rounds of asynchronous cases (commands through the executor or child_process), order rotated each round.

export interface AsyncCase<T> {
  name: string;
  /** One measurement; throws when the run did not produce what it should. */
  once: () => Promise<T>;
}

/**
 * Runs every case `rounds` times, case k of round r at position (k + r) mod n, so a slow spell on a shared
 * machine does not always land on the same case. Returns each case's measurements in round order: index r of
 * one case and of another were taken in the same round, close in time.
 */
export async function asyncRounds<T>(cases: readonly AsyncCase<T>[], rounds: number): Promise<Map<string, T[]>> {
  const out = new Map<string, T[]>(cases.map((c) => [c.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < cases.length; k++) {
      const c = cases[(k + round) % cases.length]!;
      out.get(c.name)!.push(await c.once());
    }
  }
  return out;
}

/** The median of per-round ratios `mine[r] / base[r]`: neighbours in time share the machine's state. */
export function roundRatios(mine: readonly number[], base: readonly number[]): number[] {
  return mine.map((value, round) => value / base[round]!);
}
