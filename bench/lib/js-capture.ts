// The main-thread baseline for the executor: child_process.spawn of `bash -c`, its pipes read in JavaScript,
// keeping the same 64000-byte tail per stream the executor keeps.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { NaiveTail } from './naive.js';

export interface JsCaptured {
  code: number | null;
  stdoutBytes: number;
  stdoutTail: Buffer;
}

/** Runs `bash -c command` from the main thread and resolves once it has exited and both pipes closed. */
export function jsCapture(command: string, cap = 64000): Promise<JsCaptured> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = new NaiveTail(cap);
    const err = new NaiveTail(cap);
    let stdoutBytes = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      out.write(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => err.write(chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdoutBytes, stdoutTail: out.bytes }));
  });
}

/** Bare spawn of `bash -c command`, awaited to its exit, nothing read: the floor of starting a command. */
export function bareSpawn(command: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code));
  });
}

/** `bareSpawn` with the synchronous time of the spawn call itself and the wall time to exit, in ms. */
export function bareSpawnTimed(command: string): Promise<{ syncMs: number; wallMs: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn('bash', ['-c', command], { stdio: 'ignore' });
    const syncMs = performance.now() - t0;
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve({ syncMs, wallMs: performance.now() - t0 });
      else reject(new Error(`bash -c ${command}: exit ${code}`));
    });
  });
}
