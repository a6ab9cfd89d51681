// The SSH executor's options are judged at start: hosts are required, a host is validated field by field, and the
// sandbox is taken beside it (each host's runner confines the commands there).
import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../../src/index.js';

const host = { host: '127.0.0.1', identityFile: '/k', knownHostsFile: '/kh' };

describe('executor.kind ssh options', () => {
  it('needs at least one host', async () => {
    await expect(createRuntime({ executor: { kind: 'ssh' } })).rejects.toThrow('invalid runtime options: executor.hosts: kind ssh needs at least one host');
  });

  it('names a bad host field', async () => {
    await expect(createRuntime({ executor: { kind: 'ssh', hosts: [{ ...host, port: 0 }] } })).rejects.toThrow(/^invalid runtime options: executor\.hosts\.0\.port: /);
    await expect(createRuntime({ executor: { kind: 'ssh', hosts: [{ host: 'h', identityFile: '/k' }] } as never })).rejects.toThrow(/^invalid runtime options: executor\.hosts\.0\.knownHostsFile: /);
  });

  it('takes the sandbox beside it', async () => {
    const runtime = await createRuntime({ executor: { kind: 'ssh', hosts: [host] }, sandbox: { mode: 'read-only' } });
    expect(runtime.sandbox?.modeFor(undefined)).toBe('read-only');
    await runtime.close();
  });
});
