// Real `shellring serve` processes and an HAProxy in front of them (deploy/haproxy.cfg), for the HTTP benchmarks.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
// Compiled, this file is dist/bench/lib; run from source (the memory and refusal tests), bench/lib.
const root = path.resolve(here, path.basename(path.resolve(here, '../..')) === 'dist' ? '../../..' : '../..');
const cli = path.join(root, 'dist/src/cli/main.js');

export interface Process {
  child: ChildProcess;
  port: number;
  stop(): Promise<void>;
}

/** Starts `shellring serve` on an ephemeral port with the token in the environment; resolves once it listens. */
export async function startServe(token: string, cwd: string, args: string[] = []): Promise<Process> {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--cwd', cwd, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, SHELLRING_TOKEN: token },
  });
  const port = await new Promise<number>((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(text);
      if (match) resolve(Number(match[1]));
    };
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${text}`)));
  });
  // Keep draining the JSON logs, or the pipe fills and the server blocks on its synchronous writes.
  child.stderr!.resume();
  return { child, port, stop: () => stop(child, 'SIGINT') };
}

/** HAProxy running the shipped configuration with these backends in place of the documented ports. */
export async function startProxy(ports: number[], dir: string): Promise<Process> {
  const port = await freePort();
  let text = readFileSync(path.join(root, 'deploy/haproxy.cfg'), 'utf8')
    .replace('bind 127.0.0.1:8800', `bind 127.0.0.1:${port}`)
    .replace(/^\s*log stdout.*$/m, '')
    .replace(/^\s*server s\d .*$/gm, '')
    // Routing rules name the documented instances: keep those this proxy has.
    .replace(/^\s*use-server s(\d) .*$/gm, (line, n: string) => (Number(n) <= ports.length ? line : ''));
  text += ports.map((p, i) => `    server s${i + 1} 127.0.0.1:${p}\n`).join('');
  const file = path.join(dir, `haproxy-${port}.cfg`);
  writeFileSync(file, text);
  const child = spawn('haproxy', ['-f', file, '-db'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const deadline = Date.now() + 20_000;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`)
      .then((res) => res.status === 200)
      .catch(() => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error('haproxy did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // Health checks need a moment to see every backend up (rise 2 at 1 s).
  await new Promise((resolve) => setTimeout(resolve, 2500));
  return { child, port, stop: () => stop(child, 'SIGTERM') };
}

/** VmRSS of a process, in bytes. */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)![1]) * 1024;
}

function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}
