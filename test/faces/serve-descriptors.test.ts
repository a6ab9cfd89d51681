// Slowloris against `serve` at a descriptor limit of 1024 (prlimit): 8000 connections that send half a header and
// never close their side. The server keeps a reserve of descriptors (it sheds the oldest silent connection at its
// cap), so an open session's tool calls keep working throughout, and once the header timeout's 408 has gone out
// every such connection is closed a bound later, though its client never closes: the held descriptors drop.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, cli, httpTransport, newClient, textOf, workdir } from './helpers.js';
import { until } from '../helpers/until.js';

const work = workdir('serve-descriptors');
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

function run(command: string, args: string[]): { child: ChildProcess; out: () => string; err: () => string } {
  const env = { ...process.env };
  delete env.SHELLRING_TOKEN;
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return { child, out: () => out, err: () => err };
}

const descriptors = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

describe('serve at a descriptor limit of 1024', () => {
  it('keeps an open session working through 8000 slowloris connections, and closes them after the 408', async () => {
    const serve = run('prlimit', ['--nofile=1024', process.execPath, cli, 'serve', '--port', '0', '--cwd', work, '--sandbox', 'read-only']);
    const [url, token] = await until(
      () => /listening on (\S+)\nshellring: token \(generated for this run\): (\S+)\n/.exec(serve.err())?.slice(1),
      30_000,
      'the URL and token',
    );
    const pid = serve.child.pid!;
    const tc = newClient('descriptors');
    await tc.client.connect(httpTransport(url!, token!));
    const echo = async (word: string) => textOf(await call(tc.client, 'bash', { command: `echo ${word}`, description: 'print one word' }));
    expect(await echo('before')).toBe('before\n');
    const baseline = descriptors(pid);

    // The attacker gets descriptors enough for all its connections.
    const attack = run('prlimit', ['--nofile=20000', process.execPath, join(import.meta.dirname, 'attack/slowloris.mjs'), String(new URL(url!).port), '8000']);
    const stats = () => JSON.parse(attack.out().trim().split('\n').at(-1) || '{}') as Record<string, number | boolean>;
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, descriptors(pid))), 50);
    try {
      await until(() => stats().attempted === true, 90_000, 'every connection to be attempted');
      // Mid-flood: the server is at its cap, the session's calls still run.
      for (const word of ['during-1', 'during-2', 'during-3']) expect(await echo(word)).toBe(`${word}\n`);
      // The header timeout (10 s) answers 408 and half-closes; a bound later the connections are gone, while the
      // attacker still holds every one of its sockets open.
      await until(() => descriptors(pid) <= baseline + 20, 60_000, `the held descriptors to drop (now ${descriptors(pid)}, baseline ${baseline})`);
      expect(attack.child.exitCode).toBe(null);
      expect(stats().answered408).toBeGreaterThan(0);
      expect(await echo('after')).toBe('after\n');
    } finally {
      clearInterval(sampler);
      attack.child.kill('SIGKILL');
      await tc.client.close();
    }
    // Never at the limit: the reserve stayed free for the session's commands.
    expect(peak).toBeLessThan(1024 - 100);
    serve.child.kill('SIGINT');
    await new Promise((resolve) => serve.child.once('close', resolve));
  }, 240_000);
});
