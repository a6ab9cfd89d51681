// The Landlock backend where no namespace can be made (the seccomp fallback), as root and as an unprivileged user:
// the session view is refused with the sandbox-unavailable text, and a host SysV segment stays out of reach by id.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { executorErrors } from '../../src/contract/index.js';
import { runScenarios, users } from './harness.js';

const script = join(import.meta.dirname, 'fallback.mjs');

describe.each(users)('the seccomp fallback as %s', (user) => {
  const facts = runScenarios(script, 'landlock', user);

  it('a host segment attaches by its id unconfined (so the refusal below is the filter’s)', () => {
    expect(facts.shmid).toBeGreaterThanOrEqual(0);
    expect(facts.unconfined).toBe('attached\nstat\n');
  });

  it('refuses the session read policy with the exact sandbox-unavailable text, running nothing', () => {
    expect(facts.session.isError).toBe(true);
    expect(facts.session.text).toContain(executorErrors.sandboxUnavailable('workspace-write'));
    expect(facts.session.text).not.toContain('ran');
  });

  it('under the host read policy runs partially enforced, and refuses shmat and shmctl of the host segment', () => {
    expect(facts.host.sandbox).toMatchObject({ mode: 'workspace-write', enforcement: 'partial' });
    expect(facts.host.text).toBe('ran\nrefused\nrefused\n');
  });
});
