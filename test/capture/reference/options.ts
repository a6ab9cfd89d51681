// Capture options: checked in the binding's order, defaults filled in, before any id is taken.
import type { CaptureOptions } from '../../../src/capture/types.js';
import { count } from './args.js';
import { debugString, invalidOptions } from './errors.js';
import { DEFAULT_LIVE_LIMIT, DEFAULT_SETTLED_LIMIT } from './ring.js';

export const DEFAULT_CAP = 64000;
export const DEFAULT_SPILL_CAP = 67108864;

export interface ResolvedOptions {
  stdoutCap: number;
  stderrCap: number;
  spillDir: string | undefined;
  spillName: string | undefined;
  spillCap: number;
  ring: { liveLimit: number; settledLimit: number } | undefined;
}

const optional = (name: string, value: number | undefined, fallback: number): number =>
  value === undefined ? fallback : count(name, value);

export function resolveOptions(options: CaptureOptions = {}): ResolvedOptions {
  let ring: ResolvedOptions['ring'];
  if (options.ring === true) ring = { liveLimit: DEFAULT_LIVE_LIMIT, settledLimit: DEFAULT_SETTLED_LIMIT };
  else if (options.ring) {
    ring = {
      liveLimit: optional('ring.liveLimit', options.ring.liveLimit, DEFAULT_LIVE_LIMIT),
      settledLimit: optional('ring.settledLimit', options.ring.settledLimit, DEFAULT_SETTLED_LIMIT),
    };
  }
  const resolved: ResolvedOptions = {
    stdoutCap: optional('stdoutCap', options.stdoutCap, DEFAULT_CAP),
    stderrCap: optional('stderrCap', options.stderrCap, DEFAULT_CAP),
    spillDir: options.spillDir,
    spillName: options.spillName,
    spillCap: optional('spillCap', options.spillCap, DEFAULT_SPILL_CAP),
    ring,
  };
  const name = resolved.spillName;
  // The name is joined to the spill directory: it must not climb out of it or name the directory itself.
  if (name !== undefined && (name === '' || name === '.' || name === '..' || /[/\0]/.test(name))) {
    throw invalidOptions(`spillName must be a plain file name, got ${debugString(name)}`);
  }
  return resolved;
}
