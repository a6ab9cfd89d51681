// The CLI over SSH: `--ssh-host` (repeatable) with the user's own key and known_hosts, and a --config file with a
// host's every field, both against a real sshd; a bad --ssh-host is a usage error naming the form.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startSshd, type Sshd } from '../../../bench/lib/sshd.js';

const run = promisify(execFile);
const cli = join(import.meta.dirname, '../../../dist/src/cli/main.js');
let sshd: Sshd;
let home: string;

beforeAll(async () => {
  sshd = await startSshd();
  home = mkdtempSync(join(tmpdir(), 'shellring-ssh-home-'));
  mkdirSync(join(home, '.ssh'), { mode: 0o700 });
  copyFileSync(sshd.host.identityFile, join(home, '.ssh', 'id_ed25519'));
  copyFileSync(sshd.host.knownHostsFile, join(home, '.ssh', 'known_hosts'));
}, 60_000);

afterAll(async () => {
  await sshd?.stop();
});

/** `shellring run` in /tmp (its working directory is the remote one too) with HOME at the test's own, so --ssh-host
 * finds the key and known_hosts made above. */
const shellring = (args: string[]) =>
  run(process.execPath, [cli, ...args], { cwd: '/tmp', env: { PATH: process.env.PATH!, HOME: home }, encoding: 'utf8' }).then(
    ({ stdout }) => ({ code: 0, stdout, stderr: '' }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );

describe('shellring run over SSH', () => {
  it('--config takes a host with every field', async () => {
    const config = join(home, 'config.json');
    writeFileSync(config, JSON.stringify({ executor: { kind: 'ssh', hosts: [sshd.host] } }));
    const result = await shellring(['run', '--config', config, '--', 'echo "$PWD on the host"; exit 3']);
    expect(result.stdout).toBe('/tmp on the host\n[exit code: 3]');
  }, 60_000);

  it('--ssh-host uses ~/.ssh/id_ed25519 and ~/.ssh/known_hosts: a host that lacks shellring-runner on its PATH says so', async () => {
    const result = await shellring(['run', '--ssh-host', `root@127.0.0.1:${sshd.port}`, '--ssh-host', `root@127.0.0.1:${sshd.port}`, '--', 'echo hi']);
    // Authenticated and verified with the home's files: the far shell ran, and found no runner on root's PATH.
    expect(result.stderr).toMatch(new RegExp(`^Error: shellring: lost the connection to host root@127\\.0\\.0\\.1:${sshd.port} while the command ran: .*shellring-runner.*not found`));
  }, 60_000);

  it('a malformed --ssh-host is a usage error', async () => {
    const result = await shellring(['run', '--ssh-host', 'a@b@c', '--', 'true']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("invalid --ssh-host: expected [user@]host[:port], got 'a@b@c'");
  });
});
