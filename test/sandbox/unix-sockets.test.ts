// Network deny with allowUnixSockets, per backend, as root and as an unprivileged user: named unix sockets work, nothing
// else does, and without the option the same sockets are refused.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { runScenarios, users } from './harness.js';

const script = join(import.meta.dirname, 'unix-sockets.mjs');
const MODES = ['read-only', 'workspace-write'] as const;

describe.each(['landlock', 'bubblewrap'])('unix sockets under network deny, backend %s', (backend) => {
  describe.each(users)('as %s', (user) => {
    const facts = runScenarios(script, backend, user);

    describe.each(MODES)('in %s mode', (mode) => {
      const allowed = facts[mode].allowed;
      const denied = facts[mode].denied;

      it('with allowUnixSockets, exchanges bytes with named sockets outside and inside the workspace', () => {
        expect(allowed.outside.text).toBe(`pong:ping-outside-${mode}-allowed\n`);
        expect(allowed.inside.text).toBe(`pong:ping-inside-${mode}-allowed\n`);
      });

      it('with allowUnixSockets, binds a socket only where it may write', () => {
        if (mode === 'workspace-write') expect(allowed.own.text).toBe('own-ok\n');
        else expect(allowed.own.text).toMatch(/^(EROFS|EACCES)\n/);
      });

      it('with allowUnixSockets, still reaches no TCP, UDP or host abstract socket', () => {
        for (const name of ['tcp', 'udp']) expect(allowed[name].text, name).not.toMatch(/^(connected|sent)$/m);
        expect(allowed.abstract.text).toMatch(/^(ECONNREFUSED|EPERM)\n/);
      });

      it('without it, refuses every socket but netlink', () => {
        for (const name of ['outside', 'inside', 'abstract', 'own']) expect(denied[name].text, name).toMatch(/^EACCES\n/);
        for (const name of ['tcp', 'udp']) expect(denied[name].text, name).not.toMatch(/^(connected|sent)$/m);
      });
    });

    it('the host saw exactly the allowed exchanges: no TCP connection, no UDP packet, nothing on its abstract socket', () => {
      expect(facts.received.outside).toEqual(['ping-outside-read-only-allowed', 'ping-outside-workspace-write-allowed']);
      expect(facts.received.inside).toEqual(['ping-inside-read-only-allowed', 'ping-inside-workspace-write-allowed']);
      expect(facts.received.abstract).toEqual([]);
      expect(facts.tcpConnections).toBe(0);
      expect(facts.udpPackets).toBe(0);
    });

    it('the listeners answer the host (so each refusal was the sandbox’s)', () => {
      expect(facts.hostReach).toEqual({ outside: 'pong:host', abstract: 'pong:host' });
    });
  });
});
