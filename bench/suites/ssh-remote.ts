// SSH executor suite: a remote `true` through the executor against `ssh host true` over the same master connection,
// a gigabyte through the executor (into the native capture and a spill file) against `ssh host cat` of the same
// bytes, and the far side's CPU per GiB for each; a real sshd on loopback, rounds interleaved.
import { execFile, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { createRuntime } from '../../src/index.js';
import type { RemoteExecutor } from '../../src/executor/remote/executor.js';
import { atMost } from '../lib/at-most.js';
import { target, withRatios } from '../lib/rows.js';
import { sshdSessionPids, startSshd, type Sshd } from '../lib/sshd.js';
import { percentile } from '../lib/percentiles.js';
import type { SuiteResult } from '../lib/types.js';
import { fmt } from '../lib/units.js';

const sh = promisify(execFile);
const ROUNDS = 5;
const CALLS = 40;
const BYTE_ROUNDS = 4;
const GIB = 1 << 30;

const median = (values: number[]) => percentile(values, 50);

/** CPU (ms) of sshd's connection processes and everything under them, reaped children included. */
function farCpuMs(sshd: Sshd): number {
  let ticks = 0;
  for (const pid of sshdSessionPids(sshd)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime, stime, cutime, cstime.
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {
      // Ended while we looked: its time went to its parent's cutime.
    }
  }
  // USER_HZ is 100 on Linux.
  return (ticks * 1000) / 100;
}

/** CPU (ms) of this side: this process (the executor, its relay and capture threads, or the baseline's pipe reads)
 * and the ssh master that carries the channel. */
function nearCpuMs(masterPid: number | undefined): number {
  const own = process.cpuUsage();
  let master = 0;
  try {
    const stat = readFileSync(`/proc/${masterPid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    master = ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    // No master (it dropped): this process's own time only.
  }
  return (own.user + own.system) / 1000 + master;
}

export async function run(): Promise<SuiteResult> {
  // The remote user's HOME is an empty directory: bash started by sshd reads ~/.bashrc (Debian builds it so), and an
  // account's own would add its start-up time to every baseline call (one new channel each) but to the executor's
  // only once (one channel per session), so the ratio would measure that file rather than ssh.
  const home = mkdtempSync(join(tmpdir(), 'shellring-ssh-home-'));
  const sshd = await startSshd({ home });
  const file = join(sshd.dir, 'gigabyte');
  await sh('bash', ['-c', `head -c ${GIB} /dev/urandom > ${file}`]);
  const runtime = await createRuntime({ executor: { kind: 'ssh', hosts: [sshd.host], cwd: sshd.dir, maxOutputBytes: 64_000 } });
  const executor = runtime.executor as RemoteExecutor;
  const sessionId = 'bench';
  const remote = (command: string) => executor.run(executor.resolve({ command, sessionId, timeoutMs: 600_000 }));
  try {
    await remote('true');
    const connection = (await executor.remote.connectionOf(sessionId))!;
    // `sink`: where ssh writes the command's stdout (a file descriptor: no reads by this process in the way).
    const ssh = (command: string, sink: 'ignore' | number) =>
      new Promise<void>((resolve, reject) => {
        const child = spawn('ssh', [...connection.options(), '-o', 'ControlMaster=no', '-T', sshd.host.host, command], { stdio: ['ignore', sink, 'ignore'] });
        child.once('error', reject);
        child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`ssh ${command}: exit ${code}`))));
      });

    const latency = { remote: [] as number[], ssh: [] as number[], ratios: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      const times = { remote: [] as number[], ssh: [] as number[] };
      for (let i = 0; i < CALLS; i++) {
        // Alternating call by call: both see the same moment's load.
        for (const which of (i + round) % 2 ? (['ssh', 'remote'] as const) : (['remote', 'ssh'] as const)) {
          const start = performance.now();
          if (which === 'remote') await remote('true');
          else await ssh('true', 'ignore');
          times[which].push(performance.now() - start);
        }
      }
      latency.remote.push(median(times.remote));
      latency.ssh.push(median(times.ssh));
      latency.ratios.push(median(times.remote) / median(times.ssh));
    }

    const bytes = {
      remote: [] as number[],
      ssh: [] as number[],
      ratios: [] as number[],
      remoteCpu: [] as number[],
      sshCpu: [] as number[],
      remoteNear: [] as number[],
      sshNear: [] as number[],
    };
    for (let round = 0; round < BYTE_ROUNDS; round++) {
      const speeds = { remote: 0, ssh: 0 };
      for (const which of round % 2 ? (['ssh', 'remote'] as const) : (['remote', 'ssh'] as const)) {
        const cpu = farCpuMs(sshd);
        const near = nearCpuMs(connection.masterPid);
        const start = performance.now();
        if (which === 'remote') {
          const result = await remote(`cat ${file}`);
          if (result.exitCode !== 0) throw new Error(`remote cat: ${result.stderr.text}`);
          if (result.stdout.spillPath) rmSync(result.stdout.spillPath, { force: true });
        } else {
          // The same destination as the executor's: a file on this host's disk, written by ssh itself.
          const copy = join(sshd.dir, 'gigabyte.copy');
          const fd = openSync(copy, 'w');
          try {
            await ssh(`cat ${file}`, fd);
          } finally {
            closeSync(fd);
            rmSync(copy, { force: true });
          }
        }
        const seconds = (performance.now() - start) / 1000;
        speeds[which] = GIB / 1e6 / seconds;
        bytes[which].push(speeds[which]);
        bytes[which === 'remote' ? 'remoteCpu' : 'sshCpu'].push(farCpuMs(sshd) - cpu);
        bytes[which === 'remote' ? 'remoteNear' : 'sshNear'].push(nearCpuMs(connection.masterPid) - near);
      }
      bytes.ratios.push(speeds.remote / speeds.ssh);
    }

    const latencyRows = withRatios([
      { name: 'ssh host true (same master)', value: median(latency.ssh), unit: 'ms' },
      { name: 'SSH executor `true`', value: median(latency.remote), unit: 'ms', baseline: 'ssh host true (same master)', ratio: median(latency.ratios) },
    ]);
    const byteRows = withRatios([
      {
        name: 'ssh host cat (same master)',
        value: median(bytes.ssh),
        unit: 'MB/s',
        extra: { 'far CPU ms/GiB': median(bytes.sshCpu), 'server CPU ms/GiB': median(bytes.sshNear) },
      },
      {
        name: 'SSH executor cat (capture + spill)',
        value: median(bytes.remote),
        unit: 'MB/s',
        baseline: 'ssh host cat (same master)',
        ratio: median(bytes.ratios),
        extra: { 'far CPU ms/GiB': median(bytes.remoteCpu), 'server CPU ms/GiB': median(bytes.remoteNear) },
      },
    ]);
    const latencyRatio = latencyRows[1]!.ratio;
    const byteRatio = byteRows[1]!.ratio;
    return {
      name: 'ssh-remote',
      description: 'the SSH executor against plain ssh over the same ControlMaster connection, to a loopback sshd',
      tables: [
        { title: '`true`, one call at a time', rows: latencyRows },
        { title: '1 GiB of output (random bytes from a file on the host)', rows: byteRows },
      ],
      targets: [
        atMost('SSH executor `true` p50 <= 1.1x ssh host true', latencyRatio, 1.1, `${fmt(latencyRatio)}x (${fmt(latencyRows[1]!.value)} vs ${fmt(latencyRows[0]!.value)} ms)`),
        target('SSH executor 1 GiB throughput >= 0.9x ssh host cat', byteRatio, 0.9, `${fmt(byteRatio)}x (${fmt(byteRows[1]!.value)} vs ${fmt(byteRows[0]!.value)} MB/s)`),
      ],
      notes: [
        `Latency: ${ROUNDS} rounds x ${CALLS} calls each, alternating call by call; ratio = median of per-round p50 ratios. The executor's figure is executor.run() (resolve, capture, the frame round trip, drain); the baseline opens a new channel on the master and execs the command.`,
        `Throughput: ${BYTE_ROUNDS} rounds of 1 GiB each, order alternating; the executor's bytes go through the native capture into a spill file, ssh's straight into a file on the same disk (no reads by this process: the fair ceiling). Far CPU: utime+stime of sshd's connection processes and everything under them (reaped children included), per GiB. Server CPU: this process (the executor with its relay and capture threads; for the baseline, nothing but waiting) and the ssh master, per GiB.`,
        'The remote user\'s HOME is an empty directory, so neither side runs an account\'s ~/.bashrc (bash started by sshd reads it).',
        'sshd, the runner and the benchmark share one machine (loopback): the far side\'s CPU competes with the near side\'s.',
      ],
    };
  } finally {
    await runtime.close();
    await sshd.stop();
    rmSync(home, { recursive: true, force: true });
  }
}
