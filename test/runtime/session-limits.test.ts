// Per-session memory and CPU limits through the session's cgroups: a command past the memory limit is stopped while
// the same command runs to its end without one; with a CPU weight, a session running one busy process gets as much
// CPU as a session running eight. Needs cgroups this process may write (root here); elsewhere the file says so.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bash, text } from '../helpers/calls.js';
import { runtimes } from '../helpers/runtimes.js';

const open = runtimes();
const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-session-limits-')));
const MiB = 1024 * 1024;
const writable = process.getuid?.() === 0;

describe.runIf(writable)('session limits through cgroups', () => {
  // tail keeps a line whole until it ends: 300 MiB without a newline is 300 MiB of memory.
  const hog = 'tail -n 1 < <(head -c 300M /dev/zero) | wc -c; echo "tail: ${PIPESTATUS[0]}"';

  it('memoryBytes stops a command past the limit, and nothing else', async () => {
    const limited = await open({ executor: { limits: { memoryBytes: 64 * MiB } } });
    expect(limited.executor.cgroups.containment).toMatch(/^cgroup-v[12]$/);
    const session = limited.session({ id: 'memory-limited', cwd: work });
    expect(text(await bash(session, hog))).toBe('0\ntail: 137\n');
    // The session's own cgroup carries the limit.
    const limit = await bash(
      session,
      'd=$(grep -E ":memory:|^0::" /proc/self/cgroup | head -1 | cut -d: -f3); cat /sys/fs/cgroup/memory$d/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup$d/memory.max',
    );
    expect(text(limit)).toBe(`${64 * MiB}\n`);
    // A small command of the same session still runs.
    expect(text(await bash(session, 'echo fine'))).toBe('fine\n');

    const unlimited = await open();
    expect(text(await bash(unlimited.session({ id: 'memory-free', cwd: work }), hog))).toBe(`${300 * MiB}\ntail: 0\n`);
  });

  /** CPU ticks one busy loop of `quiet` gets in 2 s on CPU 0, while `busy` runs eight loops there, each in a
   * session of its own (so the scheduler's per-session autogroups do not share them out already). */
  async function quietShare(cpuWeight: number | null): Promise<number> {
    const runtime = await open({ executor: { limits: { cpuWeight } } });
    const busy = runtime.session({ id: 'busy', cwd: work });
    const quiet = runtime.session({ id: 'quiet', cwd: work });
    // `started` once all eight loops are pinned and spinning (their shells run the loop), however slowly they start.
    const spinning = 'pgrep -cxf "sh -c while :; do :; done"';
    const loops = await bash(busy, `for i in 1 2 3 4 5 6 7 8; do setsid taskset -c 0 sh -c "while :; do :; done" & done; until [ "$(${spinning})" -ge 8 ]; do sleep 0.05; done; echo started`);
    expect(text(loops)).toContain('started\n');
    try {
      // Waited for once killed: a loop the TERM has not ended yet when bash exits would be told as left running.
      const measured = await bash(quiet, 'taskset -c 0 sh -c "while :; do :; done" & p=$!; sleep 2; awk "{print \\$14 + \\$15}" /proc/$p/stat; kill $p; wait $p || true');
      return Number(text(measured).trim());
    } finally {
      await busy.close();
    }
  }

  it('cpuWeight shares CPU between sessions as wholes, not between their processes', async () => {
    const ticksPerSecond = 100;
    const weighted = await quietShare(100);
    const unweighted = await quietShare(null);
    // Against one other session it gets about half of 2 s; against eight processes, about a ninth (97 against 21 ticks
    // on a quiet host). Other load on CPU 0 lowers both, the ratio less so.
    expect(unweighted).toBeLessThan(0.25 * 2 * ticksPerSecond);
    expect(weighted).toBeGreaterThan(2 * unweighted);
  });
});
