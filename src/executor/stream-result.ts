// Turns a finished capture stream into the result shape: tail text, truncation, and a spill path only when complete.
import type { CaptureBackend, StreamId } from '../capture/types.js';
import type { StreamResult } from './types.js';

export function streamResult(capture: CaptureBackend, id: number, stream: StreamId): StreamResult {
  const info = capture.info(id, stream);
  const result: StreamResult = { text: capture.tail(id, stream).toString('utf8'), truncated: info.truncated };
  // A spill still being written or abandoned is never advertised: the renderer then says (unavailable).
  if (info.truncated && info.spill === 'complete' && info.spillPath) result.spillPath = info.spillPath;
  return result;
}
