// The deadline and close() hold for every executor: a script whose last line is `await runtime.close()` exits 0
// every time, locally and over SSH (close() must wait only on what keeps the process alive); a far end that never
// answers, or garbles its stream, ends the call at its timeout with a line that says so, and close() returns within
// the grace plus a bound.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { remoteErrors } from '../../../src/contract/index.js';
import { hostLabel } from '../../../src/executor/remote/config.js';
import { runtimes } from '../../helpers/runtimes.js';
import { text } from '../../helpers/calls.js';
import { startSshd, type Sshd } from '../../../bench/lib/sshd.js';

const root = join(import.meta.dirname, '../../..');
const open = runtimes();
let sshd: Sshd;
const dir = mkdtempSync(join(tmpdir(), 'shellring-close-exit-'));

beforeAll(async () => {
  sshd = await startSshd();
}, 60_000);

afterAll(async () => {
  await sshd?.stop();
});

/** A script that runs one call and closes its runtime as its last line. */
const SCRIPT = `
import { createRuntime } from ${JSON.stringify(join(root, 'dist/src/index.js'))};
const runtime = await createRuntime({ executor: JSON.parse(process.env.EXECUTOR) });
const result = await runtime.session({ id: 's' }).callTool('bash', { command: 'echo hi', description: 'say hello from a script' });
if (result.content[0].text !== 'hi\\n') throw new Error(result.content[0].text);
await runtime.close();
`;

function runScript(executor: Record<string, unknown>): { status: number | null; stderr: string } {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', SCRIPT], {
    env: { ...process.env, EXECUTOR: JSON.stringify(executor) },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stderr: result.stderr };
}

describe('a script whose last line is await runtime.close()', () => {
  for (const kind of ['local', 'ssh'] as const) {
    it(`exits 0, 20 times out of 20 (${kind})`, () => {
      const executor = kind === 'local' ? { cwd: dir } : { cwd: dir, kind: 'ssh', hosts: [sshd.host] };
      const runs = Array.from({ length: 20 }, () => runScript(executor));
      expect(runs.filter((run) => run.status !== 0)).toEqual([]);
    }, 300_000);
  }
});

/** A runner path on the host that runs `body` instead of the runner. */
function fakeRunner(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

describe('a far end that does not answer', () => {
  // [what, the runner's stand-in, the call's timeoutMs, the line it reads]
  const cases: [string, string, number, (label: string) => string][] = [
    ['never answers', 'exec sleep 600', 3000, (label) => remoteErrors.noAnswer(label, 3000)],
    // A frame header that promises more than ever comes.
    ['sends half a frame', "printf '\\020\\000\\000\\000T\\001\\000\\000\\000exit'; exec sleep 600", 3000, (label) => remoteErrors.noAnswer(label, 3000)],
    // A length no runner writes: refused as it comes, long before a timeout a loaded machine could reach first.
    ['garbles its stream', "printf 'garbage!'; exec sleep 600", 30_000, (label) => remoteErrors.garbled(label, 'a frame of 1651663207 bytes')],
  ];
  for (const [what, body, timeoutMs, line] of cases) {
    it(`${what}: the call ends by its timeout with a line that says so, and close() returns in bounds`, async () => {
      const host = { ...sshd.host, runnerPath: fakeRunner(what.replace(/ /g, '-'), body) };
      const runtime = await open({ executor: { cwd: dir, kind: 'ssh', hosts: [host], graceMs: 1000 } });
      const started = Date.now();
      const result = await runtime.session({ id: 'far' }).callTool('bash', { command: 'echo never', description: 'reach a silent host', timeoutMs });
      expect(result.isError).toBe(true);
      expect(text(result)).toBe(`Error: ${line(hostLabel(host))}`);
      // Generous: it proves the call did not wait past its timeout for ever, not how fast it ends.
      expect(Date.now() - started).toBeLessThan(timeoutMs + 20_000);
      const closing = Date.now();
      await runtime.close();
      expect(Date.now() - closing).toBeLessThan(1000 + 10_000);
    }, 60_000);
  }
});
