// The server out of reach of its commands (see server-escape.mjs): under `shellring serve` with network allowed, a
// command finds no token path in any command line, no secret in any environ it can read, and cannot widen its own
// session from the console; confined under each backend and unconfined, as root and as an unprivileged user.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FACE_PEERS } from '../../src/faces/peers.js';
import { runScenarios, users } from './harness.js';

const script = join(import.meta.dirname, 'server-escape.mjs');

describe.each(['landlock', 'bubblewrap', 'none'])('serve with backend %s', (backend) => {
  describe.each(users)('as %s', (user) => {
    const facts = runScenarios(script, backend, user, { packages: [...FACE_PEERS.mcp, ...FACE_PEERS.http, ...FACE_PEERS.console] });
    const attack = facts.attack;

    it('names the token file in no process\'s command line, the server\'s included', () => {
      expect(attack.cmdlineNamesTokenFile).toEqual([]);
      expect(facts.tokenInServeCmdline).toBe(false);
      expect(facts.serveCmdline).toEqual(['shellring serve']);
    });

    it('shows no planted secret in the command\'s environment', () => {
      expect(facts.markers).toBe(54);
      expect(facts.commandEnvMarkers).toEqual([]);
    });

    // Root holds CAP_SYS_PTRACE, which reads a non-dumpable process's environ anyway: an unconfined command run as
    // root can read anything root can. Confined commands lose the capability; unprivileged users never had it.
    const environClosed = backend !== 'none' || user !== 'root';
    it.runIf(environClosed)('reads no planted secret from any process\'s /proc environ (server, fork server, runner)', () => {
      expect(attack.markersSeen).toEqual([]);
    });

    if (backend !== 'none') {
      it('cannot read the token file, nor find the token anywhere else', () => {
        expect(attack.tokenFileRead).toBe(false);
        expect(facts.tokenFound).toBe(false);
      });

      it('cannot change its session\'s mode from the console, and stays confined', () => {
        expect(attack.modeChanges[0]).toEqual({ how: 'no token', status: 401 });
        for (const change of attack.modeChanges) expect(change.status).not.toBe(200);
        expect(facts.afterwards).toBe('refused\n');
      });
    } else {
      it('an unconfined command of the same user reads the file it is told of, but the bearer token alone still changes no mode', () => {
        // Unconfined means unconfined: the same user reads the operator's file. The token then signs a browser in;
        // the bearer header alone is refused.
        expect(attack.tokenFileRead).toBe(true);
        expect(facts.tokenFound).toBe(true);
        const byBearer = attack.modeChanges.filter((change: { how: string }) => change.how === 'bearer');
        expect(byBearer.map((change: { status: number }) => change.status)).toContain(403);
        expect(byBearer.map((change: { status: number }) => change.status)).not.toContain(200);
      });
    }
  });
});
