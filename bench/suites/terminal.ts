// Terminal jobs suite, through createRuntime() with its defaults: a keystroke's echo (input through the supervisor and
// the runner, the kernel's echo back through the runner's relay and the capture) against a bare openpty + write +
// read round trip in C; how soon a program that asks for the cursor position gets going; and a terminal job printing
// 1 GiB against the same command on pipes.
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createRuntime, type Runtime } from '../../src/index.js';
import { asyncRounds, roundRatios } from '../lib/async-rounds.js';
import { spread } from '../lib/percentiles.js';
import { target, withRatios, type Figure } from '../lib/rows.js';
import { withTempDir } from '../lib/tempdir.js';
import type { SuiteResult } from '../lib/types.js';
import { fmt, GiB, mbPerSecond, median } from '../lib/units.js';

export const aliases = ['tty'];

const here = path.dirname(fileURLToPath(import.meta.url));
const ECHO_SOURCE = path.resolve(here, '../../../bench/lib/pty-echo.c');
const KEYSTROKES = 500;
const ROUNDS = 3;
const C_ECHO = 'openpty + write + read (C)';
const JOB_ECHO = 'terminal job: keystroke to echo in the capture';
const QUERY = 'start to output, program asks the cursor position';
const PLAIN = 'start to output, program prints at once';
const PIPE = 'bash tool, 1 GiB on pipes';
const TTY = 'bash tool, 1 GiB on a terminal';
const C_RELAY = 'bare terminal relay (C), 1 GiB read from the master';
const GIB_COMMAND = 'dd if=/dev/zero bs=1M count=1024 status=none';

let serial = 0;

/** Keystroke latencies (ms) of a terminal job running `cat` behind `stty -icanon`: each byte typed, then the
 * capture's byte count watched until the echo is in it. */
async function jobEchoes(runtime: Runtime, count: number): Promise<number[]> {
  const session = runtime.session({ id: `tty-echo-${++serial}` });
  const started = await session.callTool('bash', { command: 'stty -icanon; echo ready; exec cat >/dev/null', tty: true, run_in_background: true, description: 'echo keys' });
  const id = /job (\S+)$/.exec(started.content[0]!.text)![1]!;
  const jobs = runtime.jobs!;
  const total = () => jobs.follow(id, 0, 1).total;
  while (total() < 'ready\r\n'.length) await new Promise((resolve) => setTimeout(resolve, 5));
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const before = total();
    const start = performance.now();
    if (!jobs.input(id, Buffer.from('x'))) throw new Error(`${id} takes no input`);
    while (total() === before) await new Promise((resolve) => setImmediate(resolve));
    samples.push(performance.now() - start);
  }
  await session.callTool('job_kill', { job_id: id });
  return samples;
}

/** Milliseconds for the C relay to read 1 GiB from a terminal's master. */
function cRelay(binary: string): number {
  const start = performance.now();
  const read = Number(execFileSync(binary, ['relay', GIB_COMMAND], { encoding: 'utf8' }).trim());
  if (read !== GiB) throw new Error(`the C relay read ${read} bytes`);
  return performance.now() - start;
}

function cEchoes(binary: string, count: number): number[] {
  return execFileSync(binary, [String(count)], { encoding: 'utf8' }).trim().split('\n').map((ns) => Number(ns) / 1e6);
}

/** Milliseconds from the call to the program's first line in the capture. */
async function startToOutput(runtime: Runtime, command: string): Promise<number> {
  const session = runtime.session({ id: `tty-start-${++serial}` });
  const start = performance.now();
  const started = await session.callTool('bash', { command, tty: true, run_in_background: true, description: 'start' });
  const id = /job (\S+)$/.exec(started.content[0]!.text)![1]!;
  while (!(await session.callTool('job_output', { job_id: id })).content[0]!.text.includes('go ')) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return performance.now() - start;
}

async function gibibyte(runtime: Runtime, tty: boolean): Promise<number> {
  const start = performance.now();
  const result = await runtime.session({ id: `tty-gib-${++serial}` }).callTool('bash', {
    command: GIB_COMMAND,
    description: 'print a gibibyte',
    ...(tty ? { tty: true } : {}),
  });
  if (result.isError) throw new Error(result.content[0]!.text);
  return performance.now() - start;
}

export async function run(): Promise<SuiteResult> {
  return withTempDir('shellring-bench-tty-', async (dir) => {
    const binary = path.join(dir, 'pty-echo');
    execFileSync('cc', ['-O2', '-o', binary, ECHO_SOURCE]);
    const runtime = await createRuntime();
    try {
      const query = `python3 -c "import os,sys,tty,termios;fd=0;old=termios.tcgetattr(fd);tty.setraw(fd);os.write(1,b'\\x1b[6n');r=b''
while not r.endswith(b'R'): r+=os.read(fd,32)
termios.tcsetattr(fd,termios.TCSADRAIN,old);print('go',r[2:].decode())"`;
      const plain = `python3 -c "print('go now')"`;
      const echoRounds: Map<string, number[][]> = new Map([[C_ECHO, []], [JOB_ECHO, []]]);
      const runs = await asyncRounds(
        [
          { name: C_ECHO, once: async () => void echoRounds.get(C_ECHO)!.push(cEchoes(binary, KEYSTROKES)) },
          { name: JOB_ECHO, once: async () => void echoRounds.get(JOB_ECHO)!.push(await jobEchoes(runtime, KEYSTROKES)) },
          { name: QUERY, once: () => startToOutput(runtime, query) },
          { name: PLAIN, once: () => startToOutput(runtime, plain) },
          { name: PIPE, once: () => gibibyte(runtime, false) },
          { name: TTY, once: () => gibibyte(runtime, true) },
          { name: C_RELAY, once: async () => cRelay(binary) },
        ],
        ROUNDS,
      );
      const echo = (name: string) => spread(echoRounds.get(name)!.flat());
      const p50s = (name: string) => echoRounds.get(name)!.map((round) => spread(round).p50);
      const echoRatio = median(roundRatios(p50s(JOB_ECHO), p50s(C_ECHO)));
      const ms = (name: string) => runs.get(name) as number[];
      const queryExtra = median(ms(QUERY)) - median(ms(PLAIN));
      const rate = (name: string) => ms(name).map((wall) => mbPerSecond(GiB, wall));
      const throughput = median(roundRatios(rate(TTY), rate(PIPE)));
      const againstRelay = median(roundRatios(rate(TTY), rate(C_RELAY)));
      const figures: Figure[] = [
        { name: C_ECHO, value: echo(C_ECHO).p50, unit: 'p50 ms', extra: { 'p99 ms': echo(C_ECHO).p99 } },
        { name: JOB_ECHO, value: echo(JOB_ECHO).p50, unit: 'p50 ms', baseline: C_ECHO, ratio: echoRatio, extra: { 'p99 ms': echo(JOB_ECHO).p99 } },
        { name: PLAIN, value: median(ms(PLAIN)), unit: 'ms', extra: { runs: ms(PLAIN) } },
        { name: QUERY, value: median(ms(QUERY)), unit: 'ms', baseline: PLAIN, extra: { runs: ms(QUERY) } },
        { name: PIPE, value: median(rate(PIPE)), unit: 'MB/s', extra: { runs: rate(PIPE) } },
        { name: TTY, value: median(rate(TTY)), unit: 'MB/s', baseline: PIPE, ratio: throughput, extra: { runs: rate(TTY), 'vs C relay': againstRelay } },
        { name: C_RELAY, value: median(rate(C_RELAY)), unit: 'MB/s', baseline: PIPE, extra: { runs: rate(C_RELAY) } },
      ];
      return {
        name: 'terminal',
        description: 'Terminal jobs through createRuntime(): keystroke echo, a cursor-query start, 1 GiB of output',
        tables: [{ title: 'terminal jobs', rows: withRatios(figures) }],
        targets: [
          target('keystroke echo p50 <= 2x a bare openpty round trip', echoRatio, 2, `${fmt(echoRatio)}x`, true),
          target('a cursor query adds < 100 ms to a start', queryExtra, 100, `${fmt(queryExtra)} ms`, true),
          target('1 GiB on a terminal >= 0.8x on pipes', throughput, 0.8, `${fmt(throughput)}x`),
          target('1 GiB on a terminal >= 0.8x a bare C terminal relay', againstRelay, 0.8, `${fmt(againstRelay)}x`),
        ],
        notes: [
          `${ROUNDS} interleaved rounds; each echo round is ${KEYSTROKES} keystrokes, the ratio the median of the rounds' p50 ratios.`,
          'The job side watches the capture byte count (setImmediate polling); the C side blocks in read(2) on the master.',
          'The cursor-query figure is the difference of the medians of start-to-first-line with and without the query.',
          'A terminal moves output through the kernel\'s tty layer a few KiB at a time: the bare C relay is the ceiling a terminal job can reach, pipes are not.',
        ],
      };
    } finally {
      await runtime.close();
    }
  });
}
