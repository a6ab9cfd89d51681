// Three `shellring serve` instances (s1, s2, s3) behind a real HAProxy running deploy/haproxy.cfg, for the deploy tests.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { cli, repo } from '../faces/helpers.js';
import { until } from '../helpers/until.js';
import { freePort } from '../../bench/lib/serve-instances.js';

export interface Instance {
  name: string;
  child: ChildProcess;
  port: number;
  cwd: string;
  exited: Promise<number | null>;
  stderr: () => string;
}

export interface Cluster {
  instances: Instance[];
  proxyUrl: string;
  /** What the proxy logged so far (the shipped config logs to stdout). */
  proxyLog: () => string;
  stop(): void;
}

/** One instance named `name` (also its --instance-id), in a directory of its own under `work`. */
async function startInstance(work: string, name: string, args: string[]): Promise<Instance> {
  const cwd = join(work, name);
  mkdirSync(cwd);
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--cwd', cwd, '--instance-id', name, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = Number(await until(() => /listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr)?.[1], 20_000, `${name} to listen`));
  return { name, child, port, cwd, exited, stderr: () => stderr };
}

/** The shipped configuration, with this test's ports in place of the documented ones. */
function proxyConfig(port: number, instances: Instance[]): string {
  let text = readFileSync(join(repo, 'deploy/haproxy.cfg'), 'utf8');
  text = text.replace('bind 127.0.0.1:8800', `bind 127.0.0.1:${port}`);
  instances.forEach((instance, i) => {
    text = text.replace(`127.0.0.1:880${i + 1}`, `127.0.0.1:${instance.port}`);
  });
  expect(text.split('\n').filter((line) => !line.trim().startsWith('#')).join('\n')).not.toMatch(/:880\d\b/);
  return text;
}

/** `args`: more `serve` flags for every instance (the token file among them). */
export async function startCluster(work: string, args: string[]): Promise<Cluster> {
  const instances: Instance[] = [];
  for (const name of ['s1', 's2', 's3']) instances.push(await startInstance(work, name, args));
  const port = await freePort();
  const config = join(work, 'haproxy.cfg');
  writeFileSync(config, proxyConfig(port, instances));
  const check = spawnSync('haproxy', ['-c', '-f', config], { encoding: 'utf8' });
  expect(check.status, check.stderr + check.stdout).toBe(0);
  const proxy = spawn('haproxy', ['-f', config, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  proxy.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  await until(
    () =>
      fetch(`http://127.0.0.1:${port}/healthz`)
        .then((res) => res.status === 200)
        .catch(() => false),
    20_000,
    'the proxy to serve',
  );
  return {
    instances,
    proxyUrl: `http://127.0.0.1:${port}/mcp`,
    proxyLog: () => log,
    stop() {
      proxy.kill('SIGTERM');
      for (const instance of instances) instance.child.kill('SIGKILL');
    },
  };
}
