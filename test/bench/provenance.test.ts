// Benchmark provenance: a run stores each suite's date, commit and machine, a partial run keeps the other suites'
// own, and the README table shows only results measured on committed code that is in this checkout's history.
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchTable } from '../../bench/table.js';

const root = join(import.meta.dirname, '..', '..');
const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
const machine = { arch: 'x64', cores: 2, cpu: 'Test CPU', kernel: '6.1.0', load: [0, 0, 0], memoryGiB: 1, node: 'v20.0.0', platform: 'linux' };
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
  it('shows each suite with its date and commit, and cannot show the rest', () => {
    const table = withResults(
      {
        current: { date: '2026-12-03T10:00:00.000Z', commit: head, dirty: false, machine, targets: [target('current claim')] },
        gone: { date: '2026-12-03T10:00:00.000Z', commit: 'f'.repeat(40), dirty: false, machine, targets: [target('gone claim')] },
        dirty: { date: '2026-12-03T10:00:00.000Z', commit: head, dirty: true, machine, targets: [target('dirty claim')] },
        bare: { date: '2026-12-02T10:00:00.000Z', targets: [target('bare claim')] },
      },
      (file) => benchTable(file, root),
    );
    expect(table).toBe(
      [
        '| suite | target | measured | met | date | commit |',
        '| --- | --- | --- | --- | --- | --- |',
        `| current | current claim | 1x | yes | 2026-12-03 | ${head.slice(0, 10)} |`,
        '',
        'Measured on 2 cores (Test CPU), linux 6.1.0, Node v20.0.0.',
        `Not shown: gone (measured on ffffffffff, not in this history), dirty (measured with uncommitted changes on ${head.slice(0, 10)}), bare (no provenance).`,
      ].join('\n'),
    );
  });
});

describe('a partial run', () => {
  it("replaces its suites with their provenance and keeps the others' own", () => {
    const other = { date: '2026-01-01T00:00:00.000Z', commit: 'a'.repeat(40), dirty: false, machine, targets: [target('kept')] };
    withResults({ ring: other }, (file) => {
      execFileSync(process.execPath, [join(root, 'dist/bench/run.js'), '--json', 'tail'], {
        env: { ...process.env, SHELLRING_BENCH_RESULTS: file },
        stdio: ['ignore', 'ignore', 'inherit'],
        timeout: 280_000,
      });
      const { suites } = JSON.parse(readFileSync(file, 'utf8')) as { suites: Record<string, Record<string, unknown>> };
      expect(suites.ring).toEqual(other);
      const tail = suites.tail!;
      expect(tail.commit).toBe(head);
      expect(typeof tail.dirty).toBe('boolean');
      expect(Date.now() - Date.parse(tail.date as string)).toBeLessThan(300_000);
      expect(tail.machine).toMatchObject({ cores: expect.any(Number), cpu: expect.any(String), kernel: expect.any(String) });
    });
  }, 300_000);
});
