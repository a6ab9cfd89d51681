// Under network allow (the default) a confined command reaches no abstract unix socket of the host, on either backend
// (bubblewrap keeps the host's network namespace: a Landlock scope confines it), as root and as an unprivileged user,
// in the session's sandbox and in an escalated call's own; its own abstract sockets work, and unconfined the host's
// service is reachable, so each refusal is the sandbox's.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { runScenarios, users } from './harness.js';

const script = join(import.meta.dirname, 'abstract-sockets.mjs');

describe.each(['landlock', 'bubblewrap'])('abstract unix sockets under network allow, backend %s', (backend) => {
  describe.each(users)('as %s', (user) => {
    const facts = runScenarios(script, backend, user);

    it.each(['read-only', 'workspace-write'])('in %s: the host’s service is refused, call after call; its own socket works', (mode) => {
      expect(facts[mode].host.text).toBe('EPERM\n');
      expect(facts[mode].again.text).toBe('EPERM\n');
      expect(facts[mode].host.enforcement).toBe('full');
      expect(facts[mode].own.text).toBe('own-ok\n');
    });

    it('an escalated call’s sandbox of its own refuses it too', () => {
      expect(facts.escalated.text).toBe('EPERM\n');
    });

    it('unconfined, the service answers; it heard from nobody else', () => {
      expect(facts.unconfined.text).toBe('reached:pong\n');
      expect(facts.received).toEqual(['unconfined']);
    });
  });
});
