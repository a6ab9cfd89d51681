// Benchmark provenance: a run stores each suite's date, commit, machine and the load it started under, refuses to
// start a suite on a busy machine unless told to, a partial run keeps the other suites' own, and the README table
// shows only results measured on committed code that is in this checkout's history, each with its machine and load.
import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { benchTable } from '../../bench/table.js';
import { awaitQuiet, loadLimit } from '../../bench/lib/load-gate.js';
import { fingerprint, machine as thisMachine } from '../../bench/lib/machine.js';

const root = join(import.meta.dirname, '..', '..');
const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
const machine = { arch: 'x64', cores: 2, cpu: 'Test CPU', kernel: '6.1.0', memoryGiB: 1, node: 'v20.0.0', platform: 'linux' };
const other = { ...machine, cpu: 'Other CPU', kernel: '6.2.0' };
const id = fingerprint(machine);
const target = (claim: string) => ({ claim, figure: '1x', met: true, threshold: 1, value: 1 });

function withResults<T>(suites: Record<string, unknown>, use: (file: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'shellring-bench-results-'));
  try {
    const file = join(dir, 'latest.json');
    writeFileSync(file, JSON.stringify({ suites }));
    return use(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the benchmark table', () => {
  it('shows each suite with its date, commit, machine and start load, and cannot show the rest', () => {
    const table = withResults(
      {
        current: { date: '2026-12-03T10:00:00.000Z', commit: head, dirty: false, machine, startLoad: 1.25, targets: [target('current claim')] },
        gone: { date: '2026-12-03T10:00:00.000Z', commit: 'f'.repeat(40), dirty: false, machine, targets: [target('gone claim')] },
        dirty: { date: '2026-12-03T10:00:00.000Z', commit: head, dirty: true, machine, targets: [target('dirty claim')] },
        bare: { date: '2026-12-02T10:00:00.000Z', targets: [target('bare claim')] },
      },
      (file) => benchTable(file, root),
    );
    expect(table).toBe(
      [
        '| suite | target | measured | met | date | commit | machine | load |',
        '| --- | --- | --- | --- | --- | --- | --- | --- |',
        `| current | current claim | 1x | yes | 2026-12-03 | ${head.slice(0, 10)} | ${id} | 1.25 |`,
        '',
        `Machines: ${id}: 2 cores (Test CPU), linux 6.1.0, 1 GiB, Node v20.0.0.`,
        'Load: the 1-minute load average when the suite started.',
        `Not shown: gone (measured on ffffffffff, not in this history), dirty (measured with uncommitted changes on ${head.slice(0, 10)}), bare (no provenance).`,
      ].join('\n'),
    );
  });

  it('names each machine once by its fingerprint, marks a load above 1.5 x cores, and says which loads were kept at the end', () => {
    const suite = (fields: object) => ({ date: '2026-12-03T10:00:00.000Z', commit: head, dirty: false, targets: [target('claim')], ...fields });
    const table = withResults(
      {
        quiet: suite({ machine, startLoad: 3 }),
        busy: suite({ machine, startLoad: 3.01 }),
        elsewhere: suite({ machine: { ...other, cores: 8 }, startLoad: 11.5 }),
        old: suite({ machine: { ...machine, load: [86, 20, 10] } }),
        oldQuiet: suite({ machine: { ...machine, load: [0.7, 1, 1] } }),
      },
      (file) => benchTable(file, root),
    );
    const otherId = fingerprint({ ...other, cores: 8 });
    expect(otherId).not.toBe(id);
    expect(table.split('\n').slice(2, 7).map((row) => row.split(' | ').slice(-2).join(' | '))).toEqual([
      `${id} | 3 |`,
      `${id} | **3.01** |`,
      `${otherId} | 11.5 |`,
      `${id} | **86 at end** |`,
      `${id} | 0.7 at end |`,
    ]);
    expect(table).toContain(`Machines: ${id}: 2 cores (Test CPU), linux 6.1.0, 1 GiB, Node v20.0.0; ${otherId}: 8 cores (Other CPU), linux 6.2.0, 1 GiB, Node v20.0.0.`);
    expect(table).toContain(
      "Load: the 1-minute load average when the suite started (`at end`: when it ended, in records kept before the start was); **bold**, in 2 of 5 suites: above 1.5 x the machine's cores, the most a run starts a suite at.",
    );
  });

  it('fingerprints a machine by CPU model, cores, kernel and memory, not by Node', () => {
    expect(id).toMatch(/^[0-9a-f]{8}$/);
    expect(fingerprint({ ...machine, node: 'v24.0.0' } as typeof machine)).toBe(id);
    for (const change of [{ cpu: 'Other' }, { cores: 4 }, { kernel: '6.1.1' }, { memoryGiB: 2 }]) expect(fingerprint({ ...machine, ...change })).not.toBe(id);
    expect(thisMachine().fingerprint).toBe(fingerprint(thisMachine()));
  });
});

describe('the load gate', () => {
  /** A machine whose load the test sets, on a clock the test moves. */
  function machineAt(loads: number[]) {
    let now = 0;
    const told: number[] = [];
    const gate = (waitMs: number) =>
      awaitQuiet({
        limit: loadLimit(2),
        waitMs,
        readLoad: () => loads[Math.min(Math.floor(now / 5_000), loads.length - 1)]!,
        sleep: async (ms) => void (now += ms),
        now: () => now,
        onWait: (load) => told.push(load),
      });
    return { gate, told };
  }

  it('is 1.5 x the cores', () => {
    expect(loadLimit(2)).toBe(3);
    expect(loadLimit(8)).toBe(12);
  });

  it('starts at once on a quiet machine, with the load it started under', async () => {
    const { gate, told } = machineAt([2.5]);
    expect(await gate(300_000)).toEqual({ quiet: true, load: 2.5, waitedMs: 0 });
    expect(told).toEqual([]);
  });

  it('waits while the load comes down, says so once, and starts under the load it came down to', async () => {
    const { gate, told } = machineAt([7, 5, 3.5, 2.9]);
    expect(await gate(300_000)).toEqual({ quiet: true, load: 2.9, waitedMs: 15_000 });
    expect(told).toEqual([7]);
  });

  it('refuses once the wait is over', async () => {
    const { gate } = machineAt([9]);
    expect(await gate(60_000)).toEqual({ quiet: false, load: 9, waitedMs: 60_000 });
    expect(await machineAt([9]).gate(0)).toEqual({ quiet: false, load: 9, waitedMs: 0 });
  });
});

/** Runs `node dist/bench/run.js <args>` with `results` as the results file and `loadavg` read as /proc/loadavg. */
function benchRun(args: string[], results: string, loadavg: string): { status: number | null; stdout: string; stderr: string } {
  const file = join(dirname(results), 'loadavg');
  writeFileSync(file, loadavg);
  const run = spawnSync(process.execPath, [join(root, 'dist/bench/run.js'), ...args], {
    env: { ...process.env, SHELLRING_BENCH_RESULTS: results, SHELLRING_BENCH_LOADAVG: file },
    encoding: 'utf8',
    timeout: 280_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('a partial run', () => {
  it("replaces its suites with their provenance and keeps the others' own", () => {
    const kept = { date: '2026-01-01T00:00:00.000Z', commit: 'a'.repeat(40), dirty: false, machine, targets: [target('kept')] };
    withResults({ ring: kept }, (file) => {
      const run = benchRun(['--json', 'tail'], file, '0.50 0.40 0.30 1/100 4242\n');
      expect(run.status, run.stderr).toBe(0);
      const { suites } = JSON.parse(readFileSync(file, 'utf8')) as { suites: Record<string, Record<string, unknown>> };
      expect(suites.ring).toEqual(kept);
      const tail = suites.tail!;
      expect(tail.commit).toBe(head);
      expect(typeof tail.dirty).toBe('boolean');
      expect(Date.now() - Date.parse(tail.date as string)).toBeLessThan(300_000);
      expect(tail.startLoad).toBe(0.5);
      const here = thisMachine();
      expect(tail.machine).toEqual(here);
      expect(here).toMatchObject({ cores: expect.any(Number), cpu: expect.any(String), kernel: expect.any(String), fingerprint: fingerprint(here) });
    });
  }, 300_000);

  it('refuses a suite above the load limit with a line that says so, and writes nothing for it', () => {
    withResults({}, (file) => {
      const cores = thisMachine().cores;
      const run = benchRun(['--json', '--load-wait=0', 'tail'], file, `${2 * cores} 1.00 1.00 1/100 4242\n`);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`tail not run: the 1-minute load is ${2 * cores}, above ${loadLimit(cores)} (1.5 x ${cores} cores), after 0 s of waiting`);
      expect(run.stdout).toContain('not run under load: tail');
      expect(JSON.parse(readFileSync(file, 'utf8')).suites).toEqual({});
    });
  });

  it('runs it anyway with --max-load=none, keeping the load it started under for the table to mark', () => {
    withResults({}, (file) => {
      const run = benchRun(['--json', '--max-load=none', 'tail'], file, '40.00 1.00 1.00 1/100 4242\n');
      expect(run.status, run.stderr).toBe(0);
      const { suites } = JSON.parse(readFileSync(file, 'utf8')) as { suites: Record<string, Record<string, unknown>> };
      expect(suites.tail!.startLoad).toBe(40);
      // As the table shows it once committed (this tree may hold changes, which would hide it).
      writeFileSync(file, JSON.stringify({ suites: { tail: { ...suites.tail, dirty: false, commit: head } } }));
      expect(benchTable(file, root)).toContain(`| ${thisMachine().fingerprint} | **40** |`);
    });
  }, 300_000);

  it('refuses a load limit that is not a number', () => {
    withResults({}, (file) => {
      const run = benchRun(['--max-load=busy', 'tail'], file, '0 0 0 1/1 1\n');
      expect(run.status).toBe(1);
      expect(run.stderr.trim()).toBe('--max-load must be a number of at least 0, got "busy"; usage: run.js [--json] [--max-load=<n>|none] [--load-wait=<seconds>] [suite...]');
    });
  });
});
