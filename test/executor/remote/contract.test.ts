// The contract over SSH: every case of one table yields byte for byte the text a local run yields (spill files stay
// on this host: only their runtime's own directory differs), and so do background jobs read with job_output.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalExecutor, Runtime } from '../../../src/index.js';
import { runtimes } from '../../helpers/runtimes.js';
import { background, settledJob, text } from '../../helpers/calls.js';
import { startSshd, type Sshd } from '../../../bench/lib/sshd.js';
import { CONTRACT_CASES } from './contract-cases.js';

const open = runtimes();
let sshd: Sshd;
let local: Runtime;
let remote: Runtime;

beforeAll(async () => {
  sshd = await startSshd();
  const cwd = mkdtempSync(join(tmpdir(), 'shellring-remote-cwd-'));
  local = await open({ executor: { cwd } });
  remote = await open({ executor: { cwd, kind: 'ssh', hosts: [sshd.host] } });
}, 60_000);

afterAll(async () => {
  await local?.close();
  await remote?.close();
  await sshd?.stop();
});

/** The text with what is the runtime's own named alike (its spill directory, capture and job numbers, which count
 * across every runtime of the process), each spill file it names followed by the hash of its bytes. */
function shown(runtime: Runtime, value: string): string {
  const spills = [...value.matchAll(/full output: (\S+?)\]/g)].map(([, path]) => createHash('sha256').update(readFileSync(path!)).digest('hex'));
  const named = value.split((runtime.executor as LocalExecutor).spills.root).join('<spill root>').replace(/capture-\d+/g, 'capture-N').replace(/job bash-\d+/g, 'job bash-N');
  return [named, ...spills].join('\n');
}

async function call(runtime: Runtime, session: string, args: Record<string, unknown>): Promise<string> {
  const result = await runtime.session({ id: session }).callTool('bash', { description: 'contract case', ...args });
  return shown(runtime, `${result.isError ? 'error: ' : ''}${text(result)}`);
}

describe('the SSH executor against the local one', () => {
  it.each(CONTRACT_CASES.map((c, i) => [c.name, c, i] as const))('%s: byte-identical', async (_name, c, i) => {
    // The session is placed and its channel open first: a deadline then counts the command's time alone, as locally.
    await Promise.all([call(local, `case-${i}`, { command: 'true' }), call(remote, `case-${i}`, { command: 'true' })]);
    const [mine, theirs] = await Promise.all([call(local, `case-${i}`, c.args), call(remote, `case-${i}`, c.args)]);
    expect(theirs).toBe(mine);
    // The case must say something: an empty text on both sides would prove nothing.
    expect(mine.length).toBeGreaterThan(0);
  }, 60_000);

  it('a background job reads the same through job_output', async () => {
    const read = async (runtime: Runtime) => {
      const session = runtime.session({ id: 'jobs' });
      const id = await background(session, 'for i in $(seq 1 5000); do echo line $i; done; echo err >&2; exit 4');
      await settledJob(runtime, id, 30_000);
      const output = await session.callTool('job_output', { job_id: id });
      return shown(runtime, text(output));
    };
    const [mine, theirs] = await Promise.all([read(local), read(remote)]);
    expect(theirs).toBe(mine);
    expect(mine).toContain('line 5000');
  }, 60_000);

  it('the command sees no SSH credentials, no terminal and descriptors 0-2 only', async () => {
    const probe = 'env | grep -cE "^SSH_(CONNECTION|CLIENT|AUTH_SOCK|TTY|ORIGINAL_COMMAND)=" ; tty; ls /proc/self/fd | tr "\\n" " "';
    const [mine, theirs] = await Promise.all([call(local, 'probe', { command: probe }), call(remote, 'probe', { command: probe })]);
    expect(theirs).toBe(mine);
    expect(theirs).toContain('0\nnot a tty\n0 1 2 3 ');
  }, 60_000);
});
