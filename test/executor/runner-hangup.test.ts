// A runner with nothing left below it ends its status channel with its last line, and the supervisor reads both in
// one pass: the command's result comes with its runner gone, so the host reports it in one message, with no look at
// what the command left behind. Run on this thread with a real fork server, runner and bash.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ForkServer } from '../../workers/fork-server.js';
import { Supervised } from '../../workers/supervisor.js';
import { UNCONFINED } from '../../src/executor/wire/plan.js';
import type { SupervisorTask } from '../../src/executor/protocol.js';
import { runnerPath } from '../../src/native/assets.js';
import { loadBinding } from '../../src/native/loader.js';

const binding = loadBinding();
const server = new ForkServer(runnerPath());
const captures: number[] = [];
afterAll(() => {
  for (const id of captures) binding.free(id);
});

function task(command: string): SupervisorTask {
  const captureId = binding.create({});
  captures.push(captureId);
  return {
    captureId,
    command,
    cwd: tmpdir(),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    timeoutMs: 60_000,
    atTimeout: 'kill',
    graceMs: 1000,
    drainMs: 1000,
    runnerPath: runnerPath(),
    plan: UNCONFINED,
  };
}

/** Holds this thread (its event loop reads nothing meanwhile) until the process is gone, for at most 20 s. */
function holdUntilGone(pid: number): void {
  const wait = new Int32Array(new SharedArrayBuffer(4));
  const until = Date.now() + 20_000;
  while (existsSync(`/proc/${pid}`) && Date.now() < until) Atomics.wait(wait, 0, 0, 2);
  expect(existsSync(`/proc/${pid}`)).toBe(false);
}

/** Waits, on this thread's event loop, until `ready()` holds, for at most 20 s. */
async function until(ready: () => boolean): Promise<void> {
  const end = Date.now() + 20_000;
  while (!ready() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(ready()).toBe(true);
}

describe("a runner's last line", () => {
  it('comes with its hang-up when nothing is left: the result finds the runner gone', async () => {
    const flag = join(mkdtempSync(join(tmpdir(), 'shellring-hangup-')), 'go');
    // Its output ends first; it exits when told to.
    const spec = task(`exec >&- 2>&-; while [ ! -e ${flag} ]; do sleep 0.02; done; exit 3`);
    const run = new Supervised(spec, server);
    const control = run.control();
    const seen: string[] = [];
    void control.runnerExited().then(() => seen.push('runner gone'));
    const settled = run.settled.then((result) => {
      seen.push('result');
      return result;
    });
    const live = await control.spawned();
    expect(live).not.toBeNull();
    // The end of its output is read first, as it usually is before bash's end.
    await until(() => binding.readersDone(spec.captureId));
    await binding.drain(spec.captureId, 0);
    // Then bash ends, and its runner reports, hangs up and exits while this thread reads nothing: the last line and
    // the hang-up wait together, as when the supervisor's thread is busy or slow to wake.
    writeFileSync(flag, '');
    holdUntilGone(live!.runnerPid);
    const result = await settled;
    expect(seen).toEqual(['runner gone', 'result']);
    expect(result).toMatchObject({ kind: 'ended', exitCode: 3, leftover: 0 });
  });

  it('leaves the channel open while a descendant lives: the result counts it, the runner stays', async () => {
    const run = new Supervised(task('sleep 30 & exit 0'), server);
    const control = run.control();
    let gone = false;
    void control.runnerExited().then(() => (gone = true));
    const result = await run.settled;
    expect(result).toMatchObject({ kind: 'ended', exitCode: 0, leftover: 1 });
    expect(gone).toBe(false);
    run.end();
    await control.runnerExited();
  });
});
