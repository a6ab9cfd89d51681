// The reference backend's registry: captures by numeric id, ids never reused. It lives in this module, so each thread has
// its own (the native registry is shared by every thread of the process).
import type { CaptureOptions } from '../../../src/capture/types.js';
import { Capture } from './capture.js';
import { unknownCapture } from './errors.js';
import { resolveOptions } from './options.js';

const captures = new Map<number, Capture>();
let lastId = 0;

export function createCapture(options?: CaptureOptions): number {
  // Checked before an id is taken, so a rejected create consumes none.
  const resolved = resolveOptions(options);
  const id = ++lastId;
  captures.set(id, new Capture(id, resolved));
  return id;
}

export function getCapture(id: number): Capture {
  const capture = captures.get(id);
  if (capture === undefined) throw unknownCapture(id);
  return capture;
}

export function freeCapture(id: number): void {
  const capture = getCapture(id);
  captures.delete(id);
  capture.close();
}
