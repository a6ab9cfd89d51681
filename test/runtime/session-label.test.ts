// A session's label: the name people know it by (a console's list), given at open, replaced on reopening, checked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/index.js';

let runtime: Runtime;

beforeAll(async () => {
  runtime = await createRuntime();
});

afterAll(async () => {
  await runtime.close();
});

describe('session labels', () => {
  it('keeps the label given at open, replaces it on reopening, and leaves it when a reopening gives none', () => {
    const session = runtime.session({ id: 'label-a', label: 'nightly build' });
    expect(session.label).toBe('nightly build');
    expect(runtime.session({ id: 'label-a' }).label).toBe('nightly build');
    expect(runtime.session({ id: 'label-a', label: 'release build' })).toBe(session);
    expect(session.label).toBe('release build');
    expect(runtime.session({ id: 'label-b' }).label).toBeUndefined();
    // A blank label names nothing.
    session.setLabel('   ');
    expect(session.label).toBeUndefined();
    // Any script, up to 200 characters (not UTF-16 units).
    session.setLabel('🦀'.repeat(200));
    expect([...session.label!]).toHaveLength(200);
  });

  it('refuses a label that is not one line of at most 200 characters, and a reopening with one opens nothing new', () => {
    const message = (got: string) =>
      `invalid session label: expected a string of at most 200 characters, none of them control characters, got ${got}`;
    for (const [label, got] of [
      [42, 'a number'],
      [null, 'null'],
      ['two\nlines', '"two\\nlines"'],
      ['bell\u0007', '"bell\\u0007"'],
      ['c1\u0085', '"c1\u0085"'],
      ['x'.repeat(201), `"${'x'.repeat(80)}"… (201 characters)`],
    ] as const) {
      expect(() => runtime.session({ id: 'label-bad', label: label as string }), String(label)).toThrow(message(got));
    }
    expect(runtime.sessions().some((session) => session.id === 'label-bad')).toBe(false);
    const open = runtime.session({ id: 'label-c', label: 'kept' });
    expect(() => runtime.session({ id: 'label-c', label: 'x\ty' })).toThrow(/invalid session label/);
    expect(open.label).toBe('kept');
  });
});
