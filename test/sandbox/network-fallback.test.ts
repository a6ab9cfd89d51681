// Network by name where no namespace can be made (Landlock's seccomp fallback): the command does not run, and the
// call fails with the exact SANDBOX_UNAVAILABLE text rather than run with the network it cannot confine.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { executorErrors } from '../../src/contract/index.js';
import { runScenarios } from './harness.js';

const script = join(import.meta.dirname, 'network-fallback.mjs');

describe('network by name without namespaces', () => {
  const facts = runScenarios(script, 'landlock', 'root');

  it('refuses the call with the exact SANDBOX_UNAVAILABLE text, and nothing ran', () => {
    expect(facts.isError).toBe(true);
    expect(facts.text).toBe(`Error: ${executorErrors.sandboxUnavailable('workspace-write')}`);
    expect(facts.ran).toBe(false);
  });
});
