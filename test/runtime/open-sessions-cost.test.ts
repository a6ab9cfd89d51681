// A call costs the main thread the same work whether one session is open or many (each with its spill files, a
// settled job and a running one): counted in capture-backend calls, messages to the workers and timers started,
// never in wall time. A scan over every session, job or spill file per call, or a timer per session, fails it.
import { MessagePort } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime, Session } from '../../src/index.js';
import { background, bash, settledJob, text } from '../helpers/calls.js';
import { runtimes } from '../helpers/runtimes.js';

const open = runtimes();

/** Sessions open beside the measured ones: a per-call scan over them would add at least this many operations. */
const OTHERS = 30;
/** Output past the 64000-byte tail, so every call writes a spill file. */
const SPILLING = 'head -c 300000 /dev/zero | tr "\\0" x; echo';

type Counts = Record<string, number>;

/** Counts, until stopped, every call on the capture backend's methods, every message this thread posts to a worker,
 * and every timer it starts. */
function countWork(runtime: Runtime): { counts: Counts; stop: () => void } {
  const counts: Counts = {};
  const restores: (() => void)[] = [];
  const wrap = (table: Record<string, unknown>, name: string, label: string) => {
    const original = table[name] as (...args: unknown[]) => unknown;
    restores.push(() => (table[name] = original));
    table[name] = function (this: unknown, ...args: unknown[]) {
      counts[label] = (counts[label] ?? 0) + 1;
      return original.apply(this, args);
    };
  };
  const capture = runtime.executor.capture as unknown as Record<string, unknown>;
  for (const name of Object.keys(capture).filter((key) => typeof capture[key] === 'function')) wrap(capture, name, `capture.${name}`);
  wrap(MessagePort.prototype as unknown as Record<string, unknown>, 'postMessage', 'postMessage');
  wrap(globalThis as unknown as Record<string, unknown>, 'setTimeout', 'setTimeout');
  wrap(globalThis as unknown as Record<string, unknown>, 'setInterval', 'setInterval');
  return {
    counts,
    stop: () => {
      for (const restore of restores.splice(0)) restore();
    },
  };
}

let counting: ReturnType<typeof countWork> | undefined;
let timers: ReturnType<typeof recordTimers> | undefined;
afterEach(() => {
  counting?.stop();
  timers?.stop();
});

/** The work of one spilling call in `session`. */
async function workOf(runtime: Runtime, session: Session): Promise<Counts> {
  counting = countWork(runtime);
  const result = await bash(session, SPILLING);
  counting.stop();
  expect(text(result)).toContain('[output truncated; full output: /');
  return counting.counts;
}

/** Records, until stopped, the timers this thread starts; `live()`: those neither fired nor cleared. */
function recordTimers(): { live: () => number; stop: () => void } {
  const timers: { _destroyed?: boolean }[] = [];
  const restores: (() => void)[] = [];
  for (const name of ['setTimeout', 'setInterval'] as const) {
    const table = globalThis as unknown as Record<string, (...args: unknown[]) => { _destroyed?: boolean }>;
    const original = table[name]!;
    restores.push(() => (table[name] = original));
    table[name] = (...args: unknown[]) => {
      const timer = original(...args);
      timers.push(timer);
      return timer;
    };
  }
  return {
    live: () => timers.filter((timer) => !timer._destroyed).length,
    stop: () => {
      for (const restore of restores.splice(0)) restore();
    },
  };
}

/** Timers and other handles this thread holds while nothing runs, once they have stayed the same for a second: the
 * test runner's own short timers (its throttled progress reports) come and go, while a handle a session or job held
 * would stay. */
async function idleResources(): Promise<Counts> {
  const sample = () => {
    const counts: Counts = {};
    for (const kind of process.getActiveResourcesInfo().sort()) counts[kind] = (counts[kind] ?? 0) + 1;
    return counts;
  };
  let last = sample();
  for (let round = 0; round < 30; round++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = sample();
    if (JSON.stringify(now) === JSON.stringify(last)) return now;
    last = now;
  }
  throw new Error(`the handles never settled: ${JSON.stringify(last)}`);
}

describe('a call with many sessions open', () => {
  it('costs the main thread what it costs with one open, and idle sessions hold no timers', async () => {
    const runtime = await open();
    // Warm-up: worker start, the runner's first fork and the code paths' first runs are not the call's work.
    const warm = runtime.session({ id: 'warm' });
    await bash(warm, SPILLING);
    await warm.close();

    const alone = runtime.session({ id: 'alone' });
    const firstAlone = await workOf(runtime, alone);
    const againAlone = await workOf(runtime, alone);
    const idleAlone = await idleResources();

    // Sessions that stay open: each kept a spill file, has a settled job and one still running.
    const others: Session[] = [];
    timers = recordTimers();
    for (let i = 0; i < OTHERS; i++) {
      const session = runtime.session({ id: `other-${i}` });
      others.push(session);
      expect(text(await bash(session, SPILLING))).toContain('[output truncated; full output: /');
      await settledJob(runtime, await background(session, 'echo done'));
      await background(session, 'sleep 600');
    }
    expect(runtime.jobs!.list().filter((job) => job.state === 'running')).toHaveLength(OTHERS);
    timers.stop();
    const idleMany = await idleResources();

    const crowded = runtime.session({ id: 'crowded' });
    const firstCrowded = await workOf(runtime, crowded);
    const againCrowded = await workOf(runtime, crowded);

    expect(firstCrowded).toEqual(firstAlone);
    expect(againCrowded).toEqual(againAlone);
    // The work counted is real: a spilling call reads its capture and talks to its worker.
    expect(firstAlone['capture.create']).toBe(1);
    expect(firstAlone.postMessage).toBeGreaterThan(0);
    // Open sessions and their running jobs hold no timer or handle of their own on this thread; the one worker's
    // port is held while it supervises anything, whatever the number of commands.
    const { MessagePort: ports = 0, ...rest } = idleMany;
    const { MessagePort: _alonePorts, ...restAlone } = idleAlone;
    expect(ports).toBeLessThanOrEqual(1);
    expect(rest).toEqual(restAlone);
    // Unreferenced timers too (they would not show among the handles): none is left per session or per job.
    expect(timers.live()).toBe(0);
    await Promise.all(others.map((session) => session.close()));
  });
});
