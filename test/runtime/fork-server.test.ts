// The fork server under attack from the commands it starts: killed or stopped, it (or the session's spawner it forked,
// which forks the session's runners) costs no command its result and no later command its start; it leaves with the
// runtime.
import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bash, text, until } from '../helpers/calls.js';
import { alive } from '../helpers/processes.js';
import { runtimes } from '../helpers/runtimes.js';

const open = runtimes();
const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-fork-server-')));

/** The fork servers this process started (children of its worker threads). */
function servers(): number[] {
  const found: number[] = [];
  for (const task of readdirSync(`/proc/${process.pid}/task`)) {
    for (const pid of readFileSync(`/proc/${process.pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean)) {
      try {
        if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').endsWith('shellring-runner\0--serve\0') && alive(Number(pid))) found.push(Number(pid));
      } catch {
        // Ended while we looked.
      }
    }
  }
  return found;
}

describe('the fork server', () => {
  it('killed by a command: that command still gets its result, and the next one starts on a new server', async () => {
    const runtime = await open();
    const session = runtime.session({ id: 'kills-server', cwd: work });
    expect(text(await bash(session, 'echo warm'))).toBe('warm\n');
    const [server] = servers();
    expect(server).toBeDefined();
    // The runner's parent is its session's spawner, whose parent is the server.
    const killer = await bash(session, 'kill -9 "$(cut -d" " -f4 /proc/$(cut -d" " -f4 /proc/$PPID/stat)/stat)"; sleep 0.2; echo survived');
    expect(text(killer)).toBe('survived\n');
    await until(() => !alive(server!), 5_000, 'the old server gone');
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => bash(session, `echo next-${i}`)));
    expect(results.map(text)).toEqual(Array.from({ length: 8 }, (_, i) => `next-${i}\n`));
    expect(servers()).not.toContain(server);
  });

  it("its session's spawner killed by a command: that command and a running one keep their results, later ones start", async () => {
    const runtime = await open();
    const session = runtime.session({ id: 'kills-spawner', cwd: work });
    expect(text(await bash(session, 'echo warm'))).toBe('warm\n');
    const [server] = servers();
    // Running before the kill and until after it, by the test's word rather than a clock.
    const running = bash(session, 'touch running-started; until [ -e running-go ]; do sleep 0.05; done; echo ran-through');
    await until(() => existsSync(join(work, 'running-started')), 10_000, 'the running command to start');
    const killer = await bash(session, 'p=$(cut -d" " -f4 /proc/$PPID/stat); grep -q "^pids" /proc/$p/cgroup; kill -9 "$p"; sleep 0.2; echo survived');
    expect(text(killer)).toBe('survived\n');
    writeFileSync(join(work, 'running-go'), '');
    expect(text(await running)).toBe('ran-through\n');
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => bash(session, `echo next-${i}`)));
    expect(results.map(text)).toEqual(Array.from({ length: 8 }, (_, i) => `next-${i}\n`));
    // The server lived through it.
    expect(servers()).toContain(server);
  });

  it('stopped by a command: later commands still start', async () => {
    const runtime = await open();
    const session = runtime.session({ id: 'stops-server', cwd: work });
    // The runner's parent (the session's spawner), and its parent, the server.
    const stop = 's=$(cut -d" " -f4 /proc/$PPID/stat); kill -STOP "$s" "$(cut -d" " -f4 /proc/$s/stat)"; echo stopped';
    expect(text(await bash(session, stop))).toBe('stopped\n');
    const results = await Promise.all(Array.from({ length: 4 }, (_, i) => bash(session, `echo after-${i}`, { timeoutMs: 10_000 })));
    expect(results.map(text)).toEqual(Array.from({ length: 4 }, (_, i) => `after-${i}\n`));
  });

  it('ends with the runtime', async () => {
    const others = servers();
    const runtime = await open();
    await bash(runtime.session({ id: 'closing', cwd: work }), 'true');
    const own = servers().filter((pid) => !others.includes(pid));
    expect(own).toHaveLength(1);
    await runtime.close();
    await until(() => !alive(own[0]!), 5_000, 'its server gone');
  });
});
