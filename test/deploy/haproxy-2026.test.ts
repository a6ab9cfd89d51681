// MCP 2026-07-28 clients behind the real HAProxy of deploy/haproxy.cfg and three instances: any instance answers
// tools/list and a call without a handle; requests about a handle, a task or an approval's requestState reach the
// instance that holds it; with one instance SIGKILLed, the rest keep serving and its handles and tasks are unknown.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { workdir } from '../faces/helpers.js';
import { modernClient, RawModern, textOfResult, type ModernClient } from '../faces/modern-helpers.js';
import { startCluster, type Cluster, type Instance } from './cluster.js';

const work = workdir('haproxy-2026');
const TOKEN = 'proxy-token-2026-0123456789abcdef';
const tokenFile = join(work, 'token');
const policyFile = join(work, 'policy.json');
let cluster: Cluster | undefined;
let mc: ModernClient;
let raw: RawModern;

const transport = () =>
  new StreamableHTTPClientTransport(new URL(cluster!.proxyUrl), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } });

async function text(name: string, args: Record<string, unknown>): Promise<string> {
  return textOfResult((await mc.client.callTool({ name, arguments: args })) as { content?: unknown });
}

/** The instance a call ran on: each runs in its own directory. */
async function where(args: Record<string, unknown> = {}): Promise<Instance> {
  const cwd = (await text('bash', { command: 'pwd', description: 'print the working directory', ...args })).trim();
  const instance = cluster!.instances.find((i) => i.cwd === cwd);
  if (!instance) throw new Error(`no instance runs in ${JSON.stringify(cwd)}`);
  return instance;
}

beforeAll(async () => {
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  writeFileSync(policyFile, JSON.stringify({ rules: [{ decision: 'ask', command: ['id'], message: 'looking up users needs a person' }] }));
  cluster = await startCluster(work, ['--token-file', tokenFile, '--policy', policyFile]);
  mc = await modernClient(transport(), 'behind-proxy');
  raw = new RawModern(transport());
  await raw.start();
}, 120_000);

afterAll(async () => {
  await mc?.client.close().catch(() => {});
  await raw?.close().catch(() => {});
  cluster?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('2026-07-28 behind HAProxy, three instances', () => {
  it('routes by handle, task id and requestState; survives a SIGKILLed instance', async () => {
    const { instances } = cluster!;
    // Any instance answers a call without a handle: round robin reaches all three.
    const reached = new Set<string>();
    for (let i = 0; i < 6; i += 1) reached.add((await where()).name);
    expect([...reached].sort()).toEqual(['s1', 's2', 's3']);
    expect((await mc.client.listTools()).tools.map((tool) => tool.name)).toContain('session_open');

    // Handles minted on each instance; every later call with one reaches its instance.
    const handles = new Map<string, string>();
    for (let i = 0; i < 12 && handles.size < 3; i += 1) {
      const opened = (await mc.client.callTool({ name: 'session_open', arguments: {} })) as { structuredContent?: { session: string } };
      const handle = opened.structuredContent!.session;
      handles.set(handle.split('.')[0]!, handle);
    }
    expect([...handles.keys()].sort()).toEqual(['s1', 's2', 's3']);
    const jobs = new Map<string, string>();
    for (const [name, handle] of handles) {
      for (let i = 0; i < 3; i += 1) expect((await where({ session: handle })).name).toBe(name);
      const started = await text('bash', { command: `for n in 1 2 3; do echo ${name}-$n; sleep 0.2; done`, description: 'write three lines', run_in_background: true, session: handle });
      jobs.set(name, /^started background job (\S+)$/.exec(started)![1]!);
    }
    for (const [name, handle] of handles) {
      expect(await text('job_output', { job_id: jobs.get(name), wait: true, session: handle })).toBe(
        `${name}-1\n${name}-2\n${name}-3\n[status: completed, exit code: 0]`,
      );
    }

    // Tasks (no handle: created on whichever instance took the call), polled through the proxy.
    const tasks: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      const { result } = await raw.request('tools/call', { name: 'bash', arguments: { command: `sleep 0.3; echo task-${i}`, description: 'a short task', run_in_background: true } });
      tasks.push(result!.taskId as string);
    }
    expect(new Set(tasks.map((id) => id.split('.')[0])).size).toBe(3);
    for (const [i, taskId] of tasks.entries()) {
      const done = await raw.settled(taskId);
      expect(textOfResult(done.result as object)).toBe(`task-${i}\n[status: completed, exit code: 0]`);
    }

    // Approvals: the retry carries its requestState in the body; it reaches the instance that asked, every time.
    for (let i = 0; i < 6; i += 1) {
      mc.asked.length = 0;
      expect(await text('bash', { command: `id -u >/dev/null && echo approved-${i}`, description: 'look up the user' })).toBe(`approved-${i}\n`);
      expect(mc.asked).toHaveLength(1);
    }

    // One instance dies.
    const dead = instances[0]!;
    dead.child.kill('SIGKILL');
    await dead.exited;
    const alive = new Set<string>();
    for (let i = 0; i < 6; i += 1) alive.add((await where()).name);
    expect([...alive].sort()).toEqual(['s2', 's3']);
    expect((await mc.client.listTools()).tools.length).toBe(6);
    const lost = handles.get(dead.name)!;
    expect(await text('job_list', { session: lost })).toBe(
      `Error: session ${lost} is unknown here: it expired, its server restarted, or it was opened with other credentials; call session_open for a new one`,
    );
    const lostTask = tasks.find((id) => id.startsWith(`${dead.name}.`))!;
    expect((await raw.request('tasks/get', { taskId: lostTask })).error?.message).toContain(`task ${lostTask} is unknown here`);
    for (const name of ['s2', 's3']) {
      expect((await where({ session: handles.get(name) })).name).toBe(name);
      expect(await text('job_list', { session: handles.get(name) })).toContain(`${jobs.get(name)} [bash] completed`);
    }
    const kept = tasks.find((id) => !id.startsWith(`${dead.name}.`))!;
    expect(await raw.settled(kept)).toMatchObject({ status: 'completed' });
  }, 180_000);
});
