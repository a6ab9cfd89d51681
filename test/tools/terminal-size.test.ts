// A terminal job's size: the one its caller's terminal has (a call option), the resizes a person's terminal makes
// (jobs.resize, the program told by its terminal), and the status it ended with; locally, confined on both backends,
// and on a remote host, whose runner opens the terminal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Runtime, RuntimeOptions } from '../../src/index.js';
import { jobIdOf, settledJob, text, until } from '../helpers/calls.js';
import { runtimes } from '../helpers/runtimes.js';
import { startSshd, type Sshd } from '../../bench/lib/sshd.js';

const open = runtimes();
const base = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-tty-size-')));
let sshd: Sshd;
beforeAll(async () => {
  sshd = await startSshd();
}, 60_000);
afterAll(async () => {
  await sshd?.stop();
  rmSync(base, { recursive: true, force: true });
});

const configurations: [string, () => RuntimeOptions][] = [
  ['locally', () => ({})],
  ['confined by landlock', () => ({ sandbox: { mode: 'workspace-write', backend: 'landlock' } })],
  ['confined by bubblewrap', () => ({ sandbox: { mode: 'workspace-write', backend: 'bubblewrap' } })],
  ['on a remote host', () => ({ executor: { cwd: base, kind: 'ssh', hosts: [sshd.host] } })],
];

describe.each(configurations)('a terminal job’s size, %s', { timeout: 120_000 }, (name, options) => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await open(options());
  }, 60_000);

  it('opens at the caller’s size, follows a resize, and ends with its status in the job’s info', async () => {
    const s = runtime.session({ id: `size-${name.replace(/\W+/g, '-')}`, cwd: base });
    // Each `stty size` after a line typed, so the resize lands between two of them.
    const command = 'stty size; read a; stty size; read b; exit 3';
    const started = await s.callTool('bash', { command, description: 'print the terminal size', run_in_background: true, tty: true }, { terminalSize: { cols: 132, rows: 50 } });
    const id = jobIdOf(started);
    const jobs = runtime.jobs!;
    const output = () => jobs.follow(id, 0).segments.map((segment) => segment.data.toString()).join('');
    await until(() => output().includes('50 132'), 30_000, 'the first size');
    expect(jobs.resize(id, { cols: 90, rows: 20 })).toBe(true);
    expect(jobs.input(id, Buffer.from('\r'))).toBe(true);
    await until(() => output().includes('20 90'), 30_000, 'the size after the resize');
    jobs.input(id, Buffer.from('\r'));
    await settledJob(runtime, id, 30_000);
    expect(jobs.list(s.id).find((job) => job.id === id)).toMatchObject({ state: 'completed', exitCode: 3, signal: null });
    // Ended: no terminal to resize any more.
    expect(jobs.resize(id, { cols: 90, rows: 20 })).toBe(false);
  });
});

describe('terminal sizes refused', () => {
  it('refuses a size outside 2 to 1000 in a call and in a resize, and a resize of a job without a terminal', async () => {
    const runtime = await open();
    const s = runtime.session({ id: 'size-refused', cwd: base });
    for (const terminalSize of [{ cols: 1, rows: 24 }, { cols: 80, rows: 1001 }, { cols: 80.5, rows: 24 }, { cols: 80 }, 'big']) {
      const result = await s.callTool('bash', { command: 'true', description: 'x', run_in_background: true, tty: true }, { terminalSize } as never);
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^Error: invalid terminalSize: expected \{cols, rows\}, whole numbers from 2 to 1000, got /);
    }
    const piped = jobIdOf(await s.callTool('bash', { command: 'sleep 100', description: 'no terminal', run_in_background: true }));
    expect(runtime.jobs!.resize(piped, { cols: 100, rows: 30 })).toBe(false);
    expect(() => runtime.jobs!.resize(piped, { cols: 0, rows: 30 })).toThrow(/invalid terminalSize/);
    await s.callTool('job_kill', { job_id: piped });
  });
});
