// Per-session resource limits, per backend, as root (cgroups here) and as an unprivileged user (the runner's
// rlimit in the command's own user namespace): a flood stops at the limit, a neighbour keeps working, and
// everything the flood started is gone when its session closes.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { isRoot, runScenarios, users } from './harness.js';

const script = join(import.meta.dirname, 'limits.mjs');

describe.each(['landlock', 'bubblewrap'])('limits on backend %s', (backend) => {
  describe.each(users)('as %s', (user) => {
    const facts = runScenarios(script, backend, user);

    it('uses the containment this host offers', () => {
      // Root may create v1 pids cgroups here; an unprivileged user may not, and gets the per-command rlimit.
      expect(facts.containment).toMatch(user === 'root' && isRoot ? /^cgroup-v[12]$/ : /^rlimit$/);
    });

    it('stops a process flood at the limit', () => {
      expect(facts.forked).toBeGreaterThan(5);
      expect(facts.forked).toBeLessThan(facts.limit);
      expect(facts.aliveDuring).toBeLessThanOrEqual(facts.limit);
    });

    it('leaves another session able to work beside the flood', () => {
      expect(facts.neighbour).toBe('neighbour-ok\n');
    });

    it('leaves nothing behind once the session closes', () => {
      expect(facts.aliveAfterSessionClose).toBe(0);
    });
  });
});
