// Several `shellring serve` instances behind a real HAProxy running deploy/haproxy.cfg: its log keeps no query
// string (no token from an address); 30 SDK sessions with background jobs, one instance SIGKILLed (its sessions get
// "Session not found" and start over; the others keep their jobs and output), another SIGTERMed (its calls in
// flight finish before it exits).
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, httpTransport, jobIdOf, newClient, textOf, workdir, type TestClient } from '../faces/helpers.js';
import { until } from '../helpers/until.js';
import { startCluster, type Cluster, type Instance } from './cluster.js';

const work = workdir('haproxy');
const TOKEN = 'proxy-token-0123456789abcdef0123';
const tokenFile = join(work, 'token');
const SESSIONS = 30;

let cluster: Cluster | undefined;
let instances: Instance[] = [];
let proxyUrl: string;
const clients: TestClient[] = [];

async function connect(name: string): Promise<TestClient> {
  const tc = newClient(name);
  await tc.client.connect(httpTransport(proxyUrl, TOKEN));
  clients.push(tc);
  return tc;
}

/** Which instance serves this session: each runs in its own directory. */
async function home(tc: TestClient): Promise<Instance> {
  const cwd = textOf(await call(tc.client, 'bash', { command: 'pwd', description: 'print the working directory' })).trim();
  const instance = instances.find((i) => i.cwd === cwd);
  if (!instance) throw new Error(`no instance runs in ${cwd}`);
  return instance;
}

beforeAll(async () => {
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  cluster = await startCluster(work, ['--token-file', tokenFile, '--drain-timeout', '30000']);
  instances = cluster.instances;
  proxyUrl = cluster.proxyUrl;
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((tc) => tc.client.close().catch(() => {})));
  cluster?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('three instances behind HAProxy', () => {
  it('logs each request without its query string: a token in an address never reaches the log', async () => {
    const origin = new URL(proxyUrl).origin;
    const marker = `/?token=${TOKEN}&marker=log-test`;
    // The link form is refused for a configured token (400), and its token is still not logged.
    const link = await fetch(`${origin}${marker}`, { redirect: 'manual' });
    expect(link.status).toBe(400);
    // The form sign-in works through the proxy.
    const form = await fetch(`${origin}/`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: TOKEN }),
    });
    expect(form.status).toBe(303);
    expect(form.headers.get('set-cookie')).toMatch(/^shellring_signin=/);
    await until(() => (cluster!.proxyLog().match(/ 400 /g) ?? []).length >= 1 && / 303 .*"POST \/ HTTP\/1\.1"/.test(cluster!.proxyLog()), 20_000, 'the log lines');
    expect(cluster!.proxyLog()).toMatch(/ 400 .*"GET \/ HTTP\/1\.1"/);
    expect(cluster!.proxyLog()).not.toContain(TOKEN);
    expect(cluster!.proxyLog()).not.toContain('marker=log-test');
  });


  it('spreads 30 sessions, survives a SIGKILLed and a SIGTERMed instance', async () => {
    // 30 sessions, each with a background job that writes numbered lines for a few seconds.
    const sessions: { i: number; tc: TestClient; home: Instance; job: string }[] = [];
    await Promise.all(
      Array.from({ length: SESSIONS }, async (_, i) => {
        const tc = await connect(`session-${i}`);
        const where = await home(tc);
        const started = await call(tc.client, 'bash', {
          command: `for n in $(seq 1 40); do echo s${i}-line-$n; sleep 0.1; done`,
          description: 'write numbered lines slowly',
          run_in_background: true,
        });
        sessions.push({ i, tc, home: where, job: jobIdOf(textOf(started)) });
      }),
    );
    const [killed, drained, kept] = instances;
    for (const instance of instances) expect(sessions.filter((s) => s.home === instance).length).toBeGreaterThan(0);

    // SIGKILL one instance: its sessions get a clean "Session not found" and start over; the others are intact.
    killed!.child.kill('SIGKILL');
    await killed!.exited;
    for (const s of sessions.filter((x) => x.home === killed)) {
      await expect(call(s.tc.client, 'job_list', {})).rejects.toThrow(/Session not found/);
      const again = await connect('restarted');
      expect((await home(again)).name).not.toBe(killed!.name);
      expect(textOf(await call(again.client, 'bash', { command: 'echo back', description: 'work in the new session' }))).toBe('back\n');
    }
    const survivors = sessions.filter((x) => x.home !== killed);
    await Promise.all(
      survivors.map(async (s) => {
        const text = textOf(await call(s.tc.client, 'job_output', { job_id: s.job, wait: true, timeout_ms: 60_000 }));
        const expected = Array.from({ length: 40 }, (_, n) => `s${s.i}-line-${n + 1}\n`).join('');
        expect(text).toBe(`${expected}[status: completed, exit code: 0]`);
      }),
    );

    // SIGTERM another: the calls in flight on it finish, then it exits 0.
    const onDrained = survivors.filter((x) => x.home === drained);
    const startedLines = () => (drained!.stderr().match(/"event":"call.started"/g) ?? []).length;
    const before = startedLines();
    // In flight until the test lets them finish, after the SIGTERM.
    const gate = join(drained!.cwd, 'go-drain');
    const inFlight = onDrained.map((s) =>
      call(s.tc.client, 'bash', { command: `until [ -e ${gate} ]; do sleep 0.05; done; echo finished-before-exit`, description: 'finish during the drain' }),
    );
    await until(() => startedLines() >= before + onDrained.length, 20_000, 'the calls to start');
    drained!.child.kill('SIGTERM');
    await until(() => drained!.stderr().includes('"event":"drain.started"'), 20_000, 'the drain to start');
    writeFileSync(gate, '');
    for (const result of await Promise.all(inFlight)) expect(textOf(result)).toBe('finished-before-exit\n');
    expect(await drained!.exited).toBe(0);
    // Its sessions then start over on the instance that is left.
    const after = await connect('after-drain');
    expect((await home(after)).name).toBe(kept!.name);
    for (const s of onDrained) await expect(call(s.tc.client, 'job_list', {})).rejects.toThrow(/Session not found/);
    // The untouched instance's sessions still work.
    for (const s of survivors.filter((x) => x.home === kept)) {
      expect(textOf(await call(s.tc.client, 'bash', { command: 'echo still', description: 'work after the others left' }))).toBe('still\n');
    }
  }, 180_000);
});
