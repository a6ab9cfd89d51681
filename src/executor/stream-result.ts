// Turns a finished capture stream into the result shape: tail text, truncation, and a spill path only when complete
// (or, when there is none, why).
import type { CaptureBackend, StreamId } from '../capture/types.js';
import { spillUnavailable } from '../contract/index.js';
import type { StreamResult } from './types.js';

/** What the command's capture was given for its spill files. */
export interface SpillContext {
  /** The cap both files had (maxSpillBytes, or less when the session's quota left less). */
  cap: number;
  /** The cap was what remained of the session's quota. */
  quotaBound: boolean;
  /** Why the command had no spill directory. */
  noDir?: string;
}

export function streamResult(capture: CaptureBackend, id: number, stream: StreamId, spill: SpillContext): StreamResult {
  const info = capture.info(id, stream);
  const result: StreamResult = { text: capture.tailText(id, stream), truncated: info.truncated };
  if (!info.truncated) return result;
  // A spill still being written or abandoned is never advertised: the renderer then says (unavailable), and why.
  if (info.spill === 'complete' && info.spillPath) result.spillPath = info.spillPath;
  else result.spillUnavailable = reason(info.total, spill);
  return result;
}

function reason(total: number, spill: SpillContext): string {
  if (spill.noDir !== undefined) return spillUnavailable.noDirectory(spill.noDir);
  if (total > spill.cap) return spill.quotaBound ? spillUnavailable.quota(spill.cap) : spillUnavailable.fileCap(spill.cap);
  return spillUnavailable.failed;
}
