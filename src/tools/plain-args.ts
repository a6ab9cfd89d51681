// Tool arguments as a null-prototype record: keys that would reach a prototype are dropped before any parsing, and
// keys a tool does not take are refused.
import { callErrors } from '../contract/index.js';
import { ShellringError } from '../errors.js';

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

/** Names other tools give the same argument, by the name they most likely mean (compared without case or `_`). */
const SYNONYMS: Record<string, readonly string[]> = {
  timeout: ['timeoutMs', 'timeout_ms'],
  cwd: ['workdir'],
  dir: ['workdir'],
  directory: ['workdir'],
  workingdirectory: ['workdir'],
  cmd: ['command'],
  script: ['command'],
  background: ['run_in_background'],
  runinbackground: ['run_in_background'],
  jobid: ['job_id'],
  id: ['job_id'],
  taskid: ['job_id'],
  block: ['wait'],
};

const squashed = (name: string) => name.toLowerCase().replaceAll('_', '').replaceAll('-', '');

/** The argument `name` most likely means among `listed`: the same letters, or a common other tool's name for it. */
function guess(name: string, listed: readonly string[]): string | undefined {
  const key = squashed(name);
  return listed.find((known) => squashed(known) === key) ?? SYNONYMS[key]?.find((known) => listed.includes(known));
}

/**
 * `plainArgs`, refusing any key outside `known` (every argument the tool takes in some configuration): a misnamed
 * argument is never ignored, so a call never runs on a default its caller meant to change, and nothing unknown is
 * forwarded. The error names `listed` (what this configuration offers) and the likely meant one.
 */
export function knownArgs(tool: string, input: unknown, known: readonly string[], listed: readonly string[]): Record<string, unknown> {
  const args = plainArgs(input);
  const unknown = Object.keys(args).filter((key) => !known.includes(key));
  if (unknown.length === 0) return args;
  const guesses = new Map(unknown.flatMap((name) => {
    const meant = guess(name, listed);
    return meant === undefined ? [] : [[name, meant] as const];
  }));
  throw new ShellringError('SHELLRING_INVALID_ARGUMENTS', callErrors.unknownArguments(tool, unknown, guesses, listed));
}
