// The SSH executor trusts only the host key its known_hosts file holds: with an empty known_hosts file, and with
// one that holds another key for the address, the command never runs, the call says why, and the file is left as
// it was (no key is learned on first use).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteErrors } from '../../../src/contract/index.js';
import { runtimes } from '../../helpers/runtimes.js';
import { text } from '../../helpers/calls.js';
import { startSshd, type Sshd } from '../../../bench/lib/sshd.js';

const open = runtimes();
let sshd: Sshd;

beforeAll(async () => {
  sshd = await startSshd();
}, 60_000);

afterAll(() => sshd?.stop());

describe('host keys', () => {
  it.each([
    ['an empty known_hosts file', () => ''],
    ['a known_hosts file with another key for the address', () => readFileSync(sshd.wrongKnownHosts, 'utf8')],
  ])('with %s, the command does not run', async (what, content) => {
    const knownHosts = join(sshd.dir, `known_hosts-${what.length}`);
    const before = content();
    writeFileSync(knownHosts, before);
    const marker = join(sshd.dir, `ran-${what.length}`);
    const runtime = await open({ executor: { cwd: sshd.dir, kind: 'ssh', hosts: [{ ...sshd.host, knownHostsFile: knownHosts }] } });
    const result = await runtime.session({ id: `keys-${what.length}` }).callTool('bash', { command: `touch ${marker}`, description: 'leave a marker file' });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(`Error: ${remoteErrors.unreachable(`root@127.0.0.1:${sshd.port}`, 'Host key verification failed.')}`);
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(knownHosts, 'utf8')).toBe(before);
  }, 60_000);

  it('with the host key in known_hosts, the command runs', async () => {
    const marker = join(sshd.dir, 'ran-known');
    const runtime = await open({ executor: { cwd: sshd.dir, kind: 'ssh', hosts: [sshd.host] } });
    const result = await runtime.session({ id: 'keys-known' }).callTool('bash', { command: `touch ${marker} && echo ran`, description: 'leave a marker file' });
    expect(text(result)).toBe('ran\n');
    expect(existsSync(marker)).toBe(true);
  }, 60_000);
});
