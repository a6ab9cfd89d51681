// The words each common client prints when a name lookup fails are recognised, in a confined call only, and the
// neighbouring failures (a refused or timed-out connection, a missing file) are not taken for one.
import { describe, expect, it } from 'vitest';
import { lookupFailed } from '../../src/sandbox/lookup-failures.js';

const confined = (stderr: string, mode = 'workspace-write') => ({
  sandbox: { mode, denied: false },
  stdout: { text: '', truncated: false },
  stderr: { text: stderr, truncated: false },
});

describe('a failed name lookup', () => {
  it.each([
    ['curl', 'curl: (6) Could not resolve host: web.test'],
    ['glibc (EAI_AGAIN)', 'socket.gaierror: [Errno -3] Temporary failure in name resolution'],
    ['glibc (EAI_NONAME)', 'ping: web.test: Name or service not known'],
    ['git', "fatal: unable to access 'https://git.test/r.git/': Could not resolve host: git.test"],
    ['wget', 'wget: unable to resolve host address ‘web.test’'],
    ['ssh', 'ssh: Could not resolve hostname git.test: Temporary failure in name resolution'],
    ['Node', 'Error: getaddrinfo ENOTFOUND web.test'],
    ['Node (EAI_AGAIN)', 'Error: getaddrinfo EAI_AGAIN registry.npmjs.org'],
    ['Rust', 'failed to lookup address information: Name or service not known'],
    ['Go', 'dial tcp: lookup proxy.golang.org on 127.0.0.53:53: no such host'],
    ['dig', ';; connection timed out; no servers could be reached'],
    ['getaddrinfo (EAI_NODATA)', 'curl: No address associated with hostname'],
  ])('is recognised from %s', (_client, line) => {
    expect(lookupFailed(confined(`${line}\n`))).toBe(true);
  });

  it.each([
    'curl: (7) Failed to connect to web.test port 80: Connection refused',
    'curl: (28) Connection timed out after 20001 milliseconds',
    'cat: hosts: No such file or directory',
    'resolved 3 packages in 120 ms',
  ])('is not read into %j', (line) => {
    expect(lookupFailed(confined(`${line}\n`))).toBe(false);
  });

  it('is not told for an unconfined call, which resolves names itself', () => {
    expect(lookupFailed(confined('curl: (6) Could not resolve host: web.test', 'danger-full-access'))).toBe(false);
    expect(lookupFailed({ stdout: { text: '', truncated: false }, stderr: { text: 'curl: (6) Could not resolve host: x', truncated: false } })).toBe(false);
  });
});
