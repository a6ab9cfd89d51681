// The silence watch's schedule, on a real capture under an injected clock: the first look after SILENCE_MS of
// silence, looks LOOK_MS apart while findings change, twice as far apart while they stay the same (up to
// LOOK_MAX_MS), and output starting the count again. A thousand idle jobs must not cost a look each second.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadBinding } from '../../src/native/loader.js';
import { watchSilence, type Found } from '../../src/executor/silence-watch.js';
import { LOOK_MAX_MS, LOOK_MS, SILENCE_MS, type WaitingFinding } from '../../src/executor/waiting.js';

const binding = loadBinding();
const input: WaitingFinding = { kind: 'input', pid: 7, name: 'cat', source: 'stdin' };

describe('watchSilence', () => {
  let capture: number;
  let stop: (() => void) | undefined;
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
    capture = binding.create();
  });
  afterEach(() => {
    stop?.();
    binding.free(capture);
    vi.useRealTimers();
  });

  /** Starts a watch whose looks answer `answer()` at once; returns the times of the looks and what was reported. */
  function watch(answer: () => WaitingFinding | null) {
    const looks: number[] = [];
    const reports: (WaitingFinding | null)[] = [];
    const look = (found: Found) => {
      looks.push(Date.now());
      found(answer());
    };
    stop = watchSilence(capture, () => false, look, (finding) => reports.push(finding));
    return { looks, reports };
  }

  it('looks first after the silence, then ever further apart while it finds the same', () => {
    const { looks, reports } = watch(() => null);
    const checks = vi.spyOn(binding, 'info');
    vi.advanceTimersByTime(120_000);
    // An idle command's watch wakes only to look: two sizes read per look, not two a second.
    expect(checks.mock.calls.length).toBe(2 * looks.length);
    checks.mockRestore();
    expect(reports).toEqual([]);
  });

  it('looks a second after a new finding, then twice as far apart each time it finds the same', () => {
    const { looks, reports } = watch(() => input);
    vi.advanceTimersByTime(120_000);
    const gaps = looks.slice(1).map((t, i) => t - looks[i]!);
    expect(looks[0]).toBe(SILENCE_MS);
    // The first look's finding is news: the next comes a second later; then each finds the same.
    expect(gaps.slice(0, 5)).toEqual([LOOK_MS, 2 * LOOK_MS, 4 * LOOK_MS, 8 * LOOK_MS, LOOK_MAX_MS]);
    expect(gaps.slice(5).every((gap) => gap === LOOK_MAX_MS)).toBe(true);
    // Looking each second would have made 118 looks.
    expect(looks.length).toBeLessThan(12);
    expect(reports).toEqual([input]);
  });

  it('looks again a second later after a changed finding, and starts over when output resumes', () => {
    let answer: WaitingFinding | null = null;
    const { looks, reports } = watch(() => answer);
    vi.advanceTimersByTime(40_000);
    const before = looks.length;
    answer = input;
    // The next look finds the change, at most LOOK_MAX_MS on; the one after it comes a second later.
    while (looks.length === before) vi.advanceTimersByTime(LOOK_MS);
    expect(looks.at(-1)! - looks.at(-2)!).toBeLessThanOrEqual(LOOK_MAX_MS);
    const changedAt = looks.at(-1)!;
    vi.advanceTimersByTime(LOOK_MS);
    expect(looks.at(-1)).toBe(changedAt + LOOK_MS);
    expect(reports).toEqual([input]);
    // Output clears the finding at once and waits for a new silence before the next look.
    answer = null;
    binding.write(capture, 0, Buffer.from('more\n'));
    const wrote = Date.now();
    vi.advanceTimersByTime(SILENCE_MS + 2 * LOOK_MS);
    expect(reports).toEqual([input, null]);
    // Output is seen at the watch's next tick, a new silence counted from there.
    const after = looks.filter((t) => t > wrote);
    expect(after).toHaveLength(1);
    expect(after[0]! - wrote).toBeGreaterThanOrEqual(SILENCE_MS);
    expect(after[0]! - wrote).toBeLessThanOrEqual(SILENCE_MS + LOOK_MS);
  });

  it('wakes once per shared tick for watches started at different moments', () => {
    const stops: (() => void)[] = [];
    const looks: number[] = [];
    const wakes = new Set<number>();
    const info = binding.info.bind(binding);
    const checks = vi.spyOn(binding, 'info').mockImplementation((id, stream) => {
      wakes.add(Date.now());
      return info(id, stream);
    });
    // Fifty commands started 7 ms apart, as a burst of background jobs comes in.
    for (let i = 0; i < 50; i++) {
      const look = (found: Found) => {
        looks.push(Date.now());
        found(null);
      };
      stops.push(watchSilence(capture, () => false, look, () => {}));
      vi.advanceTimersByTime(7);
    }
    wakes.clear();
    vi.advanceTimersByTime(60_000);
    checks.mockRestore();
    for (const stop of stops) stop();
    expect(looks.length).toBeGreaterThanOrEqual(50 * 5);
    // Each timer firing falls on a 250 ms tick, shared: apart, each round of looks would take 50 wakes.
    expect([...wakes].every((t) => t % 250 === 0)).toBe(true);
    expect(wakes.size).toBeLessThan(looks.length / 10);
  });

  it('never sends a second look while one is unanswered', () => {
    const pending: Found[] = [];
    stop = watchSilence(capture, () => false, (found) => pending.push(found), () => {});
    vi.advanceTimersByTime(30_000);
    expect(pending).toHaveLength(1);
    // The answer found nothing new: the next look comes twice the first gap later.
    pending[0]!(null);
    vi.advanceTimersByTime(2 * LOOK_MS);
    expect(pending).toHaveLength(2);
  });
});
