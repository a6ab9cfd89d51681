// The Cordis plugins' config schemas are derived from the zod schemas createRuntime validates with: same options,
// same defaults, same ranges.
import { describe, expect, it } from 'vitest';
import type Schema from 'schemastery';
import type { z } from 'zod';
import { bashLocal, bashSandbox, jobsLocal, toolBash } from '../../src/cordis/index.js';
import { executorConfigSchema } from '../../src/executor/config.js';
import { jobOptionsSchema } from '../../src/jobs/options.js';
import { runtimeOptionsSchema } from '../../src/runtime/options.js';
import { sandboxConfigSchema } from '../../src/sandbox/config.js';
import { bashToolConfigSchema } from '../../src/tools/bash-config.js';

const plugins: [string, Schema, z.ZodObject, Record<string, unknown>[]][] = [
  ['bash-local', bashLocal.Config, executorConfigSchema, [{ timeoutMs: 0 }, { threads: 65 }, { graceMs: -1 }, { env: { inherit: 'some' } }, { limits: { cpuWeight: 0 } }]],
  ['jobs-local', jobsLocal.Config, jobOptionsSchema, [{ maxJobsPerOwner: 0 }, { readBytes: 1.5 }, { pollMs: 'fast' }]],
  ['tool-bash', toolBash.Config, bashToolConfigSchema, [{ promoteOnTimeout: 'yes' }]],
  ['bash-sandbox', bashSandbox.Config, executorConfigSchema.safeExtend(sandboxConfigSchema.shape), [{ mode: 'bogus' }, { network: 'maybe' }, { threads: 0 }]],
];

describe.each(plugins)('the %s plugin config', (_name, config, zod, invalid) => {
  it('fills exactly the defaults the zod schema fills', () => {
    expect(config({})).toEqual(zod.parse({}));
  });

  it('refuses what the zod schema refuses', () => {
    for (const input of invalid) {
      expect(zod.safeParse(input).success, JSON.stringify(input)).toBe(false);
      expect(() => config(input), JSON.stringify(input)).toThrow();
    }
  });
});

describe('createRuntime options', () => {
  it('take the job, sandbox and bash tool options from the same schemas', () => {
    const parsed = runtimeOptionsSchema.parse({ jobs: {}, sandbox: {} });
    expect(parsed.jobs).toEqual(jobOptionsSchema.parse({}));
    expect(parsed.sandbox).toEqual(sandboxConfigSchema.parse({}));
    expect({ enableRunInBackground: parsed.enableRunInBackground, promoteOnTimeout: parsed.promoteOnTimeout }).toEqual(
      bashToolConfigSchema.parse({}),
    );
  });
});
