// Waiting detection on a remote host, against a real sshd: a silent command's processes are looked at through the
// host's runner (a snapshot of its /proc), and the same "[waiting...]" texts come back as from a local run, byte for
// byte but for the pids, ports and times the two runs cannot share.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Runtime } from '../../../src/index.js';
import { runtimes } from '../../helpers/runtimes.js';
import { bash, text, until } from '../../helpers/calls.js';
import { acceptServer, onPty } from '../../helpers/waiting.js';
import { processesWith } from '../../helpers/processes.js';
import { startSshd, type Sshd } from '../../../bench/lib/sshd.js';

const open = runtimes();
let sshd: Sshd;
let work: string;
let local: Runtime;
let remote: Runtime;

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-remote-waiting-')));
  sshd = await startSshd();
  local = await open({ executor: { cwd: work } });
  remote = await open({ executor: { cwd: work, kind: 'ssh', hosts: [sshd.host] } });
}, 60_000);

afterAll(async () => {
  await sshd?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** The text with what differs between two runs of one command masked: pids, ports, elapsed times. */
const masked = (out: string) => out.replace(/pid \d+/g, 'pid N').replace(/bash-\d+/g, 'bash-N').replace(/:\d+\]/g, ':PORT]').replace(/after \d+ms/g, 'after Nms');


describe('waiting detection on a remote host', () => {
  it('ends the wait of a prompt on a terminal early with the local text', async () => {
    const marker = 'remote-answered-5521';
    const prompt = async (runtime: Runtime, session: string) => {
      const s = runtime.session({ id: session, cwd: work });
      const started = Date.now();
      const result = await bash(s, onPty(`read -p "Name? " name; echo "$name" > ${marker}`), { timeoutMs: 120_000 });
      expect(Date.now() - started).toBeLessThan(60_000);
      const id = (result.structuredContent as { jobId: string }).jobId;
      const listed = text(await s.callTool('job_list', {}));
      await s.callTool('job_kill', { job_id: id });
      return { said: text(result), listed };
    };
    const [here, there] = [await prompt(local, 'prompt'), await prompt(remote, 'prompt')];
    expect(there.said).toMatch(/^\[waiting for input: pid \d+ \(bash\) reads a terminal; /);
    expect(masked(there.said)).toBe(masked(here.said));
    expect(masked(there.listed)).toBe(masked(here.listed));
    await until(() => processesWith(marker).length === 0, 15_000, 'the prompts to end');
  }, 180_000);

  it('names an accept() server and its address on the host, as locally', async () => {
    const serve = async (runtime: Runtime) => {
      const s = runtime.session({ id: 'accept', cwd: work });
      const { id, port, listed } = await acceptServer(runtime, s);
      await s.callTool('job_kill', { job_id: id });
      return { port, listed };
    };
    const [here, there] = [await serve(local), await serve(remote)];
    expect(there.listed).toContain(`accepts connections on 127.0.0.1:${there.port}]`);
    expect(masked(there.listed)).toBe(masked(here.listed));
  }, 120_000);

  it('flags no sleep there', async () => {
    expect(text(await bash(remote.session({ id: 'sleep', cwd: work }), 'sleep 5', { timeoutMs: 120_000 }))).toBe('(no output)');
  }, 60_000);
});
