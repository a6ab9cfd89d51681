// A session's spawner: the fork server forks a session's runners through a process that joined the session's cgroups
// once, so each runner (and its command) is born in them instead of being moved in per command; the spawner ends
// when its session closes. Needs cgroups this process may write (root here); elsewhere the file says so.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bash, text, until } from '../helpers/calls.js';
import { alive } from '../helpers/processes.js';
import { runtimes } from '../helpers/runtimes.js';

const open = runtimes();
const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-session-spawner-')));
const writable = process.getuid?.() === 0;

/** The command's pids cgroup, its runner's, and the pid and pids cgroup of the runner's parent. */
const LINEAGE =
  'cg() { grep -E ":pids:|^0::" /proc/$1/cgroup | head -1 | cut -d: -f3; }; s=$(cut -d" " -f4 /proc/$PPID/stat); ' +
  'echo "$(cg $$) $(cg $PPID) $s $(cg $s)"';

describe.runIf(writable)("a session's spawner", () => {
  it("forks each runner inside its session's cgroups, one spawner per session and worker", async () => {
    const runtime = await open({ executor: { threads: 1 } });
    expect(runtime.executor.cgroups.containment).toMatch(/^cgroup-v[12]$/);
    const lineage = async (id: string) => text(await bash(runtime.session({ id, cwd: work }), LINEAGE)).trim().split(' ');
    const [command, runner, spawner, spawnerCgroup] = await lineage('first');
    expect(command).toMatch(/\/session-\d+$/);
    // The runner, and the spawner that forked it, are in the command's own cgroup: nothing was moved per command.
    expect(runner).toBe(command);
    expect(spawnerCgroup).toBe(command);
    const again = await lineage('first');
    expect(again).toEqual([command, runner, spawner, spawnerCgroup]);
    const other = await lineage('second');
    expect(other[0]).not.toBe(command);
    expect(other[1]).toBe(other[0]);
    expect(other[2]).not.toBe(spawner);
  });

  it('ends with its session, and a later session of the same id gets a new one', async () => {
    const runtime = await open({ executor: { threads: 1 } });
    const session = runtime.session({ id: 'closing', cwd: work });
    const [, , spawner] = text(await bash(session, LINEAGE)).trim().split(' ');
    expect(alive(Number(spawner))).toBe(true);
    await session.close();
    await until(() => !alive(Number(spawner)), 5_000, 'the spawner gone with its session');
    const [command, runner, next] = text(await bash(runtime.session({ id: 'closing', cwd: work }), LINEAGE)).trim().split(' ');
    expect(runner).toBe(command);
    expect(next).not.toBe(spawner);
  });
});
