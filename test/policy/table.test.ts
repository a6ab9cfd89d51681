// The case tables: each shape a checker must see through, each that must not over-prompt, and each it cannot
// resolve, under the allow-list policy (with the sub-command that decides where it matters), and the attack
// families under a deny-list policy, where a refused shape must never be allowed.
import { describe, expect, it } from 'vitest';
import { check, loadPolicy } from '../../src/index.js';
import { ATTACKS, DENY_POLICY } from './attacks.js';
import { CASES, TABLE_POLICY } from './cases.js';

const policy = loadPolicy(TABLE_POLICY, 'runtime', 'runtime options', 'policy.');
const denyList = loadPolicy(DENY_POLICY, 'runtime', 'runtime options', 'policy.');

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

describe('the attack families under a deny-list policy', () => {
  it('holds each command once, refused and allowed shapes of every family', () => {
    expect(new Set(ATTACKS.map((entry) => entry.command)).size).toBe(ATTACKS.length);
    expect(ATTACKS.filter((entry) => entry.expected === 'refused').length).toBeGreaterThanOrEqual(150);
  });

  it.each(ATTACKS.map((entry) => [entry.family, JSON.stringify(entry.command), entry] as const))('%s: %s', (_family, _shown, entry) => {
    const decision = check(entry.command, { policies: [denyList] }).decision;
    if (entry.expected === 'allow') expect(decision).toBe('allow');
    else expect(decision).not.toBe('allow');
  });
});
