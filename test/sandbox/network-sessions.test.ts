// 50 sessions × 20 connections at once under network by name: every allowed connection is served, every other one
// refused, and each refusal is named in its own session's result and no other.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { runScenarios } from './harness.js';

const script = join(import.meta.dirname, 'network-sessions.mjs');

describe.each(['landlock', 'bubblewrap'])('network by name under load, backend %s', (backend) => {
  const facts = runScenarios(script, backend, 'root');

  it('serves every allowed connection and refuses every other, in every session', () => {
    for (const result of facts.results) expect(result.codes).toEqual({ ok: 10, refused: 10 });
    expect(facts.served).toBe(50 * 10);
  });

  it("names each session's refusals in that session's result only", () => {
    facts.results.forEach((result: { blocked: { host: string }[] }, i: number) => {
      expect(result.blocked.map((b) => b.host)).toEqual([`s${i}.test`]);
    });
  });
});
