// Hosts a domain policy does not list, put to a person, per backend, as root and as an unprivileged user: allowed
// once, for the session or refused, one request for ten waiting connections, a denied host never asked, nobody to
// ask, and a session closed while its person is asked.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { markers } from '../../src/contract/markers.js';
import { runScenarios, users } from './harness.js';

const script = join(import.meta.dirname, 'network-asks.mjs');
type Probe = { text: string; blocked: { host: string; port: number; reason: string }[] | null };

describe.each(['landlock', 'bubblewrap'])('network by name asking a person, backend %s', (backend) => {
  describe.each(users)('as %s', (user) => {
    const facts = runScenarios(script, backend, user);
    const port = facts.port as number;
    /** The probe was refused once, for `host`, with `reason`, and its result ends with that line. */
    const refused = (probe: Probe, host: string, reason: string) => {
      expect(probe.blocked).toEqual([{ host, port, reason }]);
      expect(probe.text.endsWith(markers.networkBlocked(host, port, reason)), probe.text).toBe(true);
    };

    it('lets a connection through once when a person allows it once, and asks again for the next', () => {
      expect(facts.once).toEqual({ text: 'hello /once\n', blocked: null });
      refused(facts.onceAgain, 'once.test', 'not in the allowed hosts; a person refused it');
      expect(facts.onceAsked).toBe(2);
    });

    it('keeps a host allowed for the session, asked once', () => {
      expect(facts.always).toEqual({ text: 'hello /a\nhello /b\n', blocked: null });
      expect(facts.alwaysLater).toEqual({ text: 'hello /c\n', blocked: null });
      expect(facts.alwaysAsked).toBe(1);
    });

    it('refuses a denied host without asking anyone', () => {
      refused(facts.denied, 'evil.test', 'denied by the network policy');
      expect(facts.deniedAsked).toBe(0);
    });

    it('asks once for ten connections waiting on one host, and lets all ten through', () => {
      // What the ten curls printed, should fewer than ten have waited.
      expect(facts.manyWaiting, JSON.stringify(facts.many)).toBeGreaterThanOrEqual(10);
      expect(facts.many).toEqual({ text: 'hello /m\n'.repeat(10), blocked: null });
      expect(facts.manyAsked).toBe(1);
    });

    it("asks for a background job's connection too", () => {
      expect(facts.job).toBe('hello /job\n[status: completed, exit code: 0]');
    });

    it('says so when nobody can be asked', () => {
      refused(facts.nobody, 'nobody.test', 'not in the allowed hosts, and nobody could be asked to allow it');
    });

    it('aborts the request of a session that closes while its person is asked', () => {
      expect(facts.closing.aborted).toBe(true);
      expect(facts.closing.text).toMatch(/\[stopped: session closed\]/);
    });

    it('hands the channel network requests that name the session, host and port, and tells the model who decides', () => {
      for (const request of facts.asked) {
        expect(request).toEqual({ kind: 'network', sessionId: expect.any(String), host: expect.stringMatching(/\.test$/), port, reason: `connect to ${request.host}:${port}` });
      }
      expect(facts.prompt).toContain(
        'Commands can reach: web.test, through the proxy their environment names (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY); a connection to a host the policy does not name waits while a person is asked to allow it; for each refused connection the result says [network: blocked <host>:<port> — <reason>].',
      );
    });
  });
});
