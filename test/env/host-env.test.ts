// The host environment a command inherits is filtered once per version of the process's environment: every change
// to process.env (set, changed, deleted, the object replaced) still reaches the next command, through real bash.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime, type Session } from '../../src/index.js';
import { bash, text } from '../helpers/calls.js';
import { HostEnv } from '../../src/env/host-env.js';
import { EnvFilter, envPolicySchema } from '../../src/env/policy.js';
import { loadBinding } from '../../src/native/loader.js';

const PROBE = 'SHELLRING_HOST_ENV_PROBE';
let runtime: Runtime;
let session: Session;

beforeAll(async () => {
  runtime = await createRuntime();
  session = runtime.session({ id: 'host-env' });
});
afterAll(async () => {
  delete process.env[PROBE];
  await runtime.close();
});

const probe = async () => text(await bash(session, `printf '[%s]' "\${${PROBE}-unset}"`));

describe('the inherited host environment', () => {
  it('follows every change to process.env from one command to the next', async () => {
    expect(await probe()).toBe('[unset]');
    process.env[PROBE] = 'one';
    expect(await probe()).toBe('[one]');
    expect(await probe()).toBe('[one]');
    process.env[PROBE] = 'two';
    expect(await probe()).toBe('[two]');
    delete process.env[PROBE];
    expect(await probe()).toBe('[unset]');
  });

  it('reads a replaced process.env object as it is', async () => {
    const real = process.env;
    try {
      process.env = { ...real, [PROBE]: 'replaced' };
      expect(await probe()).toBe('[replaced]');
    } finally {
      process.env = real;
    }
    expect(await probe()).toBe('[unset]');
  });

  it('gives each call a fresh object, without the host’s managed names', () => {
    const host = new HostEnv(new EnvFilter(envPolicySchema.parse({})));
    process.env.DSH_STALE_PROBE = 'stale';
    try {
      const first = host.inherit(false);
      expect(first.DSH_STALE_PROBE).toBeUndefined();
      first.PATH = 'changed by a caller';
      expect(host.inherit(false).PATH).toBe(process.env.PATH);
    } finally {
      delete process.env.DSH_STALE_PROBE;
    }
  });

  it('versions the environment: equal while unchanged, new after any change', () => {
    const binding = loadBinding();
    const before = binding.environVersion();
    expect(binding.environVersion()).toBe(before);
    process.env[PROBE] = 'x';
    const changed = binding.environVersion();
    expect(changed).not.toBe(before);
    delete process.env[PROBE];
    expect(binding.environVersion()).not.toBe(changed);
  });
});
