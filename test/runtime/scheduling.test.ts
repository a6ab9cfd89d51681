// The server's threads against its commands: by default every command of a runtime runs in one cgroup of the cpu
// hierarchy, weighted as a whole (commandsCpuWeight), beside the server's process in a pair where the server weighs
// ten (v1; on v2 below the server's cgroup), so hundreds of busy commands weigh against the server's threads as one
// (null leaves commands in the server's cgroup); the capture threads run nicer
// than the event loop, and commands at the server's own nice value. Read from /proc and cgroupfs, by real commands
// and of this process's real threads. The cgroup part needs a cpu hierarchy this process may write (root here).
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { bash, text } from '../helpers/calls.js';
import { runtimes } from '../helpers/runtimes.js';

const open = runtimes();
const writable = process.getuid?.() === 0;

/** This process's path in the cpu hierarchy (v1 `cpu`, else the v2 entry) and where that hierarchy is mounted. */
function cpuHierarchy(): { own: string; mount: string; version: 1 | 2 } {
  const lines = readFileSync('/proc/self/cgroup', 'utf8').trim().split('\n').map((l) => l.split(':'));
  const v1 = lines.find(([, c]) => c!.split(',').includes('cpu'));
  if (v1) return { own: v1[2]!, mount: '/sys/fs/cgroup/cpu', version: 1 };
  return { own: lines.find(([, c]) => c === '')![2]!, mount: '/sys/fs/cgroup', version: 2 };
}

/** The command's own cpu cgroup path and that cgroup's weight file, as the command reads them. */
const probe = (version: 1 | 2, mount: string): string =>
  version === 1
    ? `d=$(grep -E '^[0-9]+:([^:]*,)?cpu(,[^:]*)?:' /proc/self/cgroup | cut -d: -f3); echo "$d"; cat ${mount}$d/cpu.shares`
    : `d=$(grep '^0::' /proc/self/cgroup | cut -d: -f3); echo "$d"; cat ${mount}$d/../cpu.weight`;

/** The nice value of a thread of this process (field 19 of its stat, after the parenthesised name). */
const niceOf = (tid: string): number => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);

describe.runIf(writable)('a server under a real-time policy', () => {
  it('runs its commands under the normal scheduler, in their cpu cgroup', () => {
    // A runtime in a process started by chrt: real-time tasks may not join a cpu cgroup (v1) without real-time
    // runtime, and a command must never inherit a priority that can starve the host. First in the file: this file's
    // runtimes move this process into a pair of cgroups without real-time runtime, where chrt would be refused.
    const local = new URL('../../dist/src/index.js', import.meta.url).href;
    const script = `const { createRuntime } = await import(${JSON.stringify(local)});
      const runtime = await createRuntime();
      const r = await runtime.session({ id: 'rt' }).callTool('bash', { command: 'chrt -p $$; echo ok', description: 'scheduling policy' });
      process.stdout.write(JSON.stringify(r.content[0].text));
      await runtime.close();`;
    const run = spawnSync('chrt', ['-f', '10', process.execPath, '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 120_000 });
    expect(run.stderr).toBe('');
    const out = JSON.parse(run.stdout) as string;
    expect(out).toMatch(/scheduling policy: SCHED_OTHER\n/);
    expect(out).toContain('ok\n');
  });
});

describe('thread priorities', () => {
  it('the capture threads run 5 nice values above the event loop; commands at the event loop\'s', async () => {
    const runtime = await open();
    const main = niceOf(String(process.pid));
    // Output through the capture threads starts them; the command reports its own nice value.
    const own = text(await bash(runtime.session({ id: 'nice' }), 'head -c 100000 /dev/zero | wc -c; nice'));
    expect(own).toBe(`100000\n${main}\n`);
    const io = readdirSync('/proc/self/task').filter((tid) => readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').startsWith('shellring-io-'));
    expect(io.length).toBeGreaterThan(0);
    for (const tid of io) expect(niceOf(tid)).toBe(Math.min(19, main + 5));
  });
});

describe.runIf(writable)('the commands weigh as one cgroup against the server', () => {
  const { own, mount, version } = cpuHierarchy();
  const parent = own === '/' ? '' : own;
  // v1: the server and its commands share one cgroup of their own below the server's first one (the pair), where
  // the server weighs ten ordinary processes; v2: the commands go below the server's cgroup, the server stays.
  const pair = `${parent}/shellring-${process.pid}`;
  const commandsUnder = version === 1 ? `${pair}/shellring-${process.pid}-` : `${parent}/shellring-${process.pid}-`;

  it('by default: every session\'s commands share one cgroup beside the server, weighted 100', async () => {
    const runtime = await open();
    const [a, b] = await Promise.all(['one', 'two'].map(async (id) => text(await bash(runtime.session({ id }), probe(version, mount))).split('\n')));
    const dir = a![0]!;
    expect(dir.startsWith(commandsUnder)).toBe(true);
    expect(a![1]).toBe(version === 1 ? '1024' : '100');
    if (version === 1) {
      expect(b![0]).toBe(dir);
      // The server's threads moved into the pair, where they outweigh the commands ten to one, and the pair weighs
      // against the host's other work as two ordinary processes.
      expect(cpuHierarchy().own).toBe(`${pair}/server`);
      expect(readFileSync(`${mount}${pair}/server/cpu.shares`, 'utf8').trim()).toBe('10240');
      expect(readFileSync(`${mount}${pair}/cpu.shares`, 'utf8').trim()).toBe('2048');
    } else {
      expect(cpuHierarchy().own).toBe(own);
    }
  });

  it('commandsCpuWeight sets the weight; null leaves commands in the server\'s cgroup', async () => {
    const weighted = await open({ executor: { limits: { commandsCpuWeight: 25 } } });
    expect(text(await bash(weighted.session({ id: 'w' }), probe(version, mount))).split('\n')[1]).toBe(version === 1 ? '256' : '25');
    const plain = await open({ executor: { limits: { commandsCpuWeight: null } } });
    const line = text(await bash(plain.session({ id: 'p' }), probe(version, mount))).split('\n')[0];
    if (version === 1) expect(line).toBe(cpuHierarchy().own);
  });

  it('with a session weight, each session gets a cgroup of its own below the commands\' one', async () => {
    const runtime = await open({ executor: { limits: { cpuWeight: 300, commandsCpuWeight: 50 } } });
    const [a, b] = await Promise.all(['x', 'y'].map(async (id) => text(await bash(runtime.session({ id }), probe(version, mount))).split('\n')));
    expect(a![0]).not.toBe(b![0]);
    expect(a![0]!.startsWith(commandsUnder)).toBe(true);
    if (version === 1) {
      expect(a![1]).toBe('3072');
      const commands = a![0]!.replace(/\/session-\d+$/, '');
      expect(readFileSync(`${mount}${commands}/cpu.shares`, 'utf8').trim()).toBe('512');
    }
  });

  it.runIf(version === 1)('a new pair removes the pairs of processes that ended without closing, never a live one', () => {
    // A child node process starts its pair where it is born: in this process's own cpu cgroup.
    const here = `${mount}${cpuHierarchy().own}`;
    const deadPid = spawnSync('true').pid!;
    const dead = `${here}/shellring-${deadPid}`;
    for (const dir of [`${dead}/server`, `${dead}/shellring-${deadPid}-1/session-1`]) mkdirSync(dir, { recursive: true });
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    const live = `${here}/shellring-${sleeper.pid}`;
    mkdirSync(`${live}/server`, { recursive: true });
    try {
      writeFileSync(`${live}/server/cgroup.procs`, String(sleeper.pid));
      const local = new URL('../../dist/src/index.js', import.meta.url).href;
      const script = `const { createRuntime } = await import(${JSON.stringify(local)}); await (await createRuntime()).close();`;
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 120_000 });
      expect(run.stderr).toBe('');
      expect(existsSync(dead)).toBe(false);
      expect(readFileSync(`${live}/server/cgroup.procs`, 'utf8').trim()).toBe(String(sleeper.pid));
    } finally {
      sleeper.kill('SIGKILL');
      // Once the sleeper is reaped its pair is empty and goes.
      for (let i = 0; i < 100 && existsSync(live); i++) {
        try {
          rmdirSync(`${live}/server`);
          rmdirSync(live);
        } catch {
          spawnSync('sleep', ['0.05']);
        }
      }
    }
  });

  it.runIf(version === 1)('the last runtime to close moves the server back and removes the pair', () => {
    // In a process of its own: this file's runtimes hold this process's pair until its end.
    const local = new URL('../../dist/src/index.js', import.meta.url).href;
    const script = `const { createRuntime } = await import(${JSON.stringify(local)});
      const { readFileSync, existsSync } = await import('node:fs');
      const cpu = () => readFileSync('/proc/self/cgroup', 'utf8').split('\\n').find((l) => /^\\d+:([^:]*,)?cpu(,[^:]*)?:/.test(l)).split(':')[2];
      const before = cpu();
      const [one, two] = [await createRuntime(), await createRuntime()];
      const placed = cpu();
      const pair = placed.replace(/\\/server$/, '');
      await one.close();
      const afterOne = cpu();
      await two.close();
      process.stdout.write(JSON.stringify({ before, placed, afterOne, after: cpu(), pairLeft: existsSync(${JSON.stringify(mount)} + pair) }));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 120_000 });
    expect(run.stderr).toBe('');
    const seen = JSON.parse(run.stdout) as { before: string; placed: string; afterOne: string; after: string; pairLeft: boolean };
    const base = seen.before === '/' ? '' : seen.before;
    expect(seen.placed).toMatch(new RegExp(`^${base}/shellring-\\d+/server$`));
    expect(seen.afterOne).toBe(seen.placed);
    expect(seen.after).toBe(seen.before);
    expect(seen.pairLeft).toBe(false);
  });
});
