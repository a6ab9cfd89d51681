// The case table under its allow-list policy: each shape a checker must see through, each that must not
// over-prompt, and each it cannot resolve, with the sub-command that decides where it matters.
import { describe, expect, it } from 'vitest';
import { check, loadPolicy } from '../../src/index.js';
import { CASES, TABLE_POLICY } from './cases.js';

const policy = loadPolicy(TABLE_POLICY, 'runtime', 'runtime options', 'policy.');

describe('the case table', () => {
  it('holds at least 150 cases, each command once', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(150);
    expect(new Set(CASES.map((entry) => entry.command)).size).toBe(CASES.length);
  });

  it.each(CASES.map((entry) => [entry.shape, JSON.stringify(entry.command), entry] as const))('%s: %s', (_shape, _shown, entry) => {
    const evaluation = check(entry.command, { policies: [policy] });
    expect(evaluation.decision).toBe(entry.decision);
    if (entry.subcommand !== undefined) {
      const decider = evaluation.matches.find((match) => match.decision === entry.decision);
      expect(decider?.subcommand).toBe(entry.subcommand);
    }
  });
});
