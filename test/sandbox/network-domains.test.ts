// The domain network mode, per backend, as root and as an unprivileged user: allowed hosts answer real clients (curl
// over HTTP, CONNECT and SOCKS5, git clone, npm install), every other way out is refused, and each refusal is
// named in the result of the call that made it.
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { markers } from '../../src/contract/markers.js';
import { startSshd } from '../../bench/lib/sshd.js';
import { isRoot, runScenarios, users } from './harness.js';
import { NPM_PROBE, startNpmIndex } from './npm-index.js';
import { startPackageIndex, WHEEL } from './package-index.js';

const script = join(import.meta.dirname, 'network-domains.mjs');
type Probe = { text: string; blocked: { host: string; port: number; reason: string }[] | null };

/** Node 22, where the proxy switch is still experimental, warns once per process that uses it (24 and later do
 * not): what a node probe prints there, without that warning, and no other difference. */
const NODE_22_PROXY_WARNING =
  /\(node:\d+\) \[UNDICI-EHPA\] Warning: EnvHttpProxyAgent is experimental, expect them to change at any time\.\n(?:\(Use `node --trace-warnings \.\.\.` to show where the warning was created\)\n)?/g;
function nodeOutput(text: string): string {
  if (Number(process.versions.node.split('.')[0]) >= 24) return text;
  return text.replace(NODE_22_PROXY_WARNING, '').replace(/\[stderr\]\n$/, '');
}

/** The probe's result ends with exactly this one refusal line, and its structured value names it. */
function refused(probe: Probe, host: string, reason: string): void {
  expect(probe.blocked).toHaveLength(1);
  const [block] = probe.blocked!;
  expect([block!.host, block!.reason]).toEqual([host, reason]);
  expect(probe.text.endsWith(`\n${markers.networkBlocked(block!.host, block!.port, reason)}`), probe.text).toBe(true);
}

// A loopback sshd (it runs as root) with a bare repository, for git push over SSH from inside the sandbox: the client
// key, a known_hosts line for git.test at its port, and the repository in a directory every scenario user can read.
const sshd = isRoot ? await startSshd() : undefined;
const sshDir = mkdtempSync(join(tmpdir(), 'shellring-net-ssh-'));
if (sshd) {
  copyFileSync(join(sshd.dir, 'id'), join(sshDir, 'id'));
  const hostKey = readFileSync(join(sshd.dir, 'host_key.pub'), 'utf8').split(' ').slice(0, 2).join(' ');
  writeFileSync(join(sshDir, 'known_hosts'), `[git.test]:${sshd.port} ${hostKey}\n`);
  execFileSync('git', ['init', '-q', '--bare', join(sshDir, 'remote.git')]);
  chmodSync(sshDir, 0o755);
  chmodSync(join(sshDir, 'id'), 0o644);
  process.env.SHELLRING_TEST_SSH = JSON.stringify({ port: sshd.port, dir: sshDir });
}
// pypiserver with one wheel, for pip inside the sandbox; Verdaccio with one package, for npm.
const index = await startPackageIndex();
process.env.SHELLRING_TEST_PYPI = String(index.port);
const npmIndex = await startNpmIndex();
process.env.SHELLRING_TEST_NPM = String(npmIndex.port);
afterAll(async () => {
  delete process.env.SHELLRING_TEST_PYPI;
  delete process.env.SHELLRING_TEST_NPM;
  await Promise.all([index.stop(), npmIndex.stop()]);
  delete process.env.SHELLRING_TEST_SSH;
  await sshd?.stop();
  rmSync(sshDir, { recursive: true, force: true });
});

describe.each(['landlock', 'bubblewrap'])('network by name, backend %s', (backend) => {
  describe.each(users)('as %s', (user) => {
    const facts = runScenarios(script, backend, user);
    const named = facts.named as Record<string, Probe>;

    it('reaches an allowed host by name over absolute-form HTTP, CONNECT and SOCKS5', () => {
      expect(named.allowed!.text).toBe('hello /allowed\n');
      expect(named.tunnel!.text).toBe('hello /tunnel\n');
      expect(named.socks!.text).toBe('hello /socks\n');
      for (const name of ['allowed', 'tunnel', 'socks']) expect(named[name]!.blocked, name).toBeNull();
    });

    it('clones over http from git http-backend, installs from a Verdaccio registry and downloads from a Python package index, while another registry is refused', () => {
      expect(named.git!.text).toBe('cloned through the proxy\n');
      expect(nodeOutput(named.npm!.text)).toBe(`${NPM_PROBE}\n`);
      refused(named.npmRefused!, 'other-registry.test', 'not in the allowed hosts');
      // pip, from a local pypiserver: the wheel arrives; another index is refused.
      expect(named.pip!.text).toBe(`${WHEEL}\n`);
      expect(named.pipRefused!.blocked).toEqual([{ host: 'other-registry.test', port: index.port, reason: 'not in the allowed hosts' }]);
    });

    it('tunnels through the CONNECT helper that GIT_SSH_COMMAND names, and says why a refused host is refused', () => {
      expect(named.sshHelper!.text).toBe('hello /ssh\n');
      expect(named.sshHelperRefused!.text).toMatch(/^exit 1\n\[stderr\]\nshellring-connect: \[network: blocked evil\.test:22 — a known exfiltration host\]\n/);
      expect(named.sshCommand!.text).toMatch(/^ssh -o ProxyCommand='\/\S+\/shellring-connect %h %p'\n$/);
    });

    it.runIf(sshd)('pushes with git over SSH through the CONNECT helper, and a push to a denied host is refused with its reason', () => {
      const ref = /^pushed (\S+)\n$/.exec(named.sshPush!.text)?.[1];
      expect(ref, named.sshPush!.text).toBeDefined();
      // The commit arrived in the repository behind sshd.
      expect(execFileSync('git', ['--git-dir', join(sshDir, 'remote.git'), 'log', '-1', '--format=%s', ref!], { encoding: 'utf8' })).toBe('pushed\n');
      expect(named.sshPushRefused!.text).toMatch(/^shellring-connect: \[network: blocked evil\.test:\d+ — a known exfiltration host\]\n/);
      refused(named.sshPushRefused!, 'evil.test', 'a known exfiltration host');
    });

    it('judges the target a request names, not its Host header; a relay chain through an allowed proxy is that host\'s own reach', () => {
      expect(named.hostHeader!.blocked).toEqual([{ host: 'evil.test', port: expect.any(Number), reason: 'a known exfiltration host' }]);
      expect(named.hostHeader!.text).toMatch(/^\[stderr\]\ncurl: \(56\) CONNECT tunnel failed, response 403\n\[network: blocked evil\.test:\d+ — a known exfiltration host\]\n\[exit code: 56\]$/);
      refused(named.absoluteHost!, 'evil.test', 'a known exfiltration host');
      // The first hop is judged (web.test, allowed); what an allowed host that is itself a proxy reaches is its own
      // doing (docs/sandbox.md says so): the denied name was reached through it.
      expect(named.chain!.text).toBe('hello /chain\n');
      expect(named.chain!.blocked).toBeNull();
    });

    it('refuses a denied host with its reason and an unlisted one with the default', () => {
      refused(named.denied!, 'evil.test', 'a known exfiltration host');
      refused(named.unlisted!, 'other.test', 'not in the allowed hosts');
    });

    it('through the proxy, refuses the host loopback, the metadata address and IPv6 loopback by IP', () => {
      refused(named.loopback!, '127.0.0.1', 'not in the allowed hosts');
      refused(named.metadata!, '169.254.169.254', 'not in the allowed hosts');
      refused(named.ipv6!, '::1', 'not in the allowed hosts');
    });

    it('around the proxy, reaches nothing: no route out, no name resolution, no UDP socket, no host listener', () => {
      expect(named.direct!.text).toMatch(/^curl: 7\n/);
      expect(named.metadataDirect!.text).toMatch(/^curl: 7\n/);
      expect(named.noProxy!.text).toMatch(/^curl: 6\n/);
      expect(named.udpNode!.text).toBe('EACCES\n');
      expect(named.dns!.text).toMatch(/^no answer: 2\n/);
      // A client that resolves names itself is told why it failed, and where names do resolve.
      const told = '[network: names do not resolve inside this sandbox; commands reach allowed hosts through the proxy their environment names (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY), which resolves the names itself: use a client that honours it]';
      expect(named.lookupPython!.text).toMatch(/^socket\.gaierror: \[Errno -\d+\] [^\n]+\n/);
      expect(named.lookupPython!.text.split('\n').at(-1)).toBe(told);
      expect(named.noProxy!.text).toContain(`\n${told}`);
      expect(named.allowed!.text).not.toContain('names do not resolve');
      expect(named.tcp!.text).not.toMatch(/connected/);
      expect(named.udp!.text).not.toMatch(/sent/);
      expect(facts.tcpConnections).toBe(0);
      expect(facts.udpPackets).toBe(0);
    });

    it('says which hosts commands can reach, and a policy changed for the session takes effect at its next connection', () => {
      expect(facts.prompt).toMatch(/\nCommands can reach: only web\.test, git\.test, registry\.test, through the proxy /);
      refused(facts.live.nowRefused, 'web.test', 'not in the allowed hosts');
      expect(facts.live.stillAllowed.text).toBe('HEAD\nrefs/heads/main\n');
      expect(facts.livePrompt).toMatch(/\nCommands can reach: only git\.test, through/);
    });

    it('a background job that made a refused connection names it in its settled read', () => {
      expect(facts.background).toMatch(/^\[network: blocked evil\.test:\d+ — not in the allowed hosts\]\n\[status: completed, exit code: 0\]$/);
    });

    it('with every name allowed, still refuses what a name or literal leads to inside', () => {
      const any = facts.any as Record<string, Probe>;
      refused(any.loopbackName!, 'localhost', 'resolves to a loopback address');
      refused(any.loopbackIp!, '127.0.0.1', 'a loopback address');
      refused(any.mapped!, '::ffff:127.0.0.1', 'a loopback address');
      refused(any.metadata!, '169.254.169.254', 'the cloud metadata address');
    });

    it('an entry naming the IP literal reaches it; the host served only what was allowed', () => {
      expect((facts.literal as Record<string, Probe>).loopback!.text).toBe('hello /literal\n');
      expect(facts.served).toEqual(['/allowed', '/tunnel', '/socks', '/ssh', '/chain', '/literal']);
    });
  });
});
