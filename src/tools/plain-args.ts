// Tool arguments as a null-prototype record: keys that would reach a prototype are dropped before any parsing.

/** Keys that name or reach an object's prototype; a model's arguments never get to set them. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The own enumerable string keys of `input`, copied into an object without a prototype, so an argument such as
 * `{"__proto__": {"run_in_background": true}}` can neither set a field nor be inherited by a later copy.
 * Anything that is not a plain object yields an empty record (validation then names the missing fields).
 */
export function plainArgs(input: unknown): Record<string, unknown> {
  const args = Object.create(null) as Record<string, unknown>;
  if (!input || typeof input !== 'object' || Array.isArray(input)) return args;
  for (const key of Object.keys(input)) {
    if (PROTOTYPE_KEYS.has(key)) continue;
    args[key] = (input as Record<string, unknown>)[key];
  }
  return args;
}
