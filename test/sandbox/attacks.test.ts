// Every escape the adversarial run found, per backend, as root and as an unprivileged user: each must fail.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runScenarios, users } from './harness.js';

const script = join(import.meta.dirname, 'attacks.mjs');
const MODES = ['read-only', 'workspace-write'] as const;

describe.each(['landlock', 'bubblewrap'])('attacks on backend %s', (backend) => {
  describe.each(users)('as %s', (user) => {
    const dir = mkdtempSync(join(tmpdir(), 'shellring-leak-'));
    const leak = join(dir, 'leak');
    const facts = runScenarios(script, backend, user, { leakedFd: { fd: 20, path: leak } });
    const leaked = readFileSync(leak, 'utf8');
    rmSync(dir, { recursive: true, force: true });

    describe.each(MODES)('in %s mode', (mode) => {
      const f = facts[mode];

      it('changes no mode, owner, times or extended attributes outside the writable roots', () => {
        for (const name of ['chmod', 'setuid', 'utime', 'xattr', 'chown']) expect(f[name].exitCode, name).not.toBe(0);
        expect(f.host).toEqual(facts.before);
        expect(facts.before.shellMode).toBe(0o755);
      });

      it('writes none of the kernel surfaces: /proc/sys, /sys, cgroupfs, /proc/sysrq-trigger', () => {
        for (const name of ['coreDump', 'hostname', 'sysfs', 'cgroupfs']) {
          expect(f[name].exitCode, name).not.toBe(0);
          expect(f[name].text, name).not.toMatch(/^(wrote|made)$/m);
        }
        expect(f.escapeDir).toBe(false);
        expect(f.sysrq.text).not.toContain('wrote');
      });

      it('reaches no network: TCP, UDP, a unix socket outside the roots', () => {
        for (const name of ['unix', 'tcp', 'udp']) expect(f[name].text, name).not.toMatch(/^(connected|sent)$/m);
      });

      it('cannot see another session’s spill files or temporary directory', () => {
        expect(f.peek_spill).not.toContain('sssss');
        // The spill root shows only the attacker's own session directory (bound back read-only), never the owner's.
        expect(f.peek_spillDir).not.toContain('session-1');
        expect(f.peek_spillDir).toMatch(/^(\(no output\)|session-\d+\n)$/);
        expect(f.peek_tmp).not.toContain('owner-secret');
        expect(f.peek_tmpDir).not.toContain('session-1');
      });

      it('receives descriptors 0, 1 and 2 only', () => {
        expect(f.leakedFd.exitCode).not.toBe(0);
        expect(f.fds.text).toBe('end\n');
      });
    });

    it('the attacked things exist and work from the host (so each attack could have succeeded)', () => {
      expect(facts.owner.spillReadable).toBe(true);
      expect(facts.owner.tmpReadable).toBe(true);
    });

    it('left the host untouched: no connection, no packet, no SysV IPC object, nothing through fd 20', () => {
      expect(facts.unixConnections).toBe(0);
      expect(facts.tcpConnections).toBe(0);
      expect(facts.udpPackets).toBe(0);
      expect(facts.ipcCreated).toEqual([]);
      expect(leaked).toBe('');
    });

    it('keeps chmod +x, touch and xattrs working inside the writable roots', () => {
      expect(facts.inside).toBe('tool-ran\n2001\n1\ntmp-ok\n');
    });

    it('gives unconfined commands descriptors 0, 1 and 2 only', () => {
      expect(facts.unconfined_leakedFd).toMatch(/Bad file descriptor/);
      expect(facts.unconfined_fds).toBe('end\n');
    });
  });
});
