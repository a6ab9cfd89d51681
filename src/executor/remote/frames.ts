// The frames of `shellring-runner --stdio` (crates/runner/src/stdio_frame.rs): a u32 length of what follows, a kind
// byte, the command's id (u32), the payload; little-endian.
import { remoteErrors } from '../../contract/index.js';

export const FRAME = {
  start: 0x53, // S
  signal: 0x4b, // K
  release: 0x52, // R
  drained: 0x44, // D
  // Output frames, O (stdout) and E (stderr), never reach JavaScript: the native relay writes them into captures.
  status: 0x54, // T
  outputOver: 0x58, // X
  gone: 0x47, // G
  // Both ways: a look at what the command waits on, and its answer.
  look: 0x4c, // L
} as const;

const HEADER = 9;
/** The runner refuses larger frames; past this the stream is corrupt. */
const MAX_FRAME = 256 << 20;

export interface Frame {
  kind: number;
  id: number;
  payload: Buffer;
}

export function encodeFrame(kind: number, id: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(HEADER);
  header.writeUInt32LE(payload.length + 5, 0);
  header.writeUInt8(kind, 4);
  header.writeUInt32LE(id, 5);
  return Buffer.concat([header, payload]);
}

/** Reassembles frames from the chunks of a byte stream, in order. */
export class FrameReader {
  #pending: Buffer[] = [];
  #length = 0;
  /** Bytes the front frame needs in all (4 until its length is known): chunks are joined only once it is whole. */
  #need = 4;

  /** Every whole frame the bytes so far complete; throws on a corrupt length. */
  push(chunk: Buffer): Frame[] {
    this.#pending.push(chunk);
    this.#length += chunk.length;
    if (this.#length < this.#need) return [];
    const frames: Frame[] = [];
    let buffer = this.#pending.length === 1 ? this.#pending[0]! : Buffer.concat(this.#pending, this.#length);
    let at = 0;
    this.#need = 4;
    while (buffer.length - at >= 4) {
      const length = buffer.readUInt32LE(at);
      if (length < 5 || length > MAX_FRAME) throw new Error(remoteErrors.badFrame(length));
      if (buffer.length - at - 4 < length) {
        this.#need = 4 + length;
        break;
      }
      // Payloads are views into the chunk (a stream never reuses a chunk it emitted): no copy on the output path.
      frames.push({ kind: buffer[at + 4]!, id: buffer.readUInt32LE(at + 5), payload: buffer.subarray(at + HEADER, at + 4 + length) });
      at += 4 + length;
    }
    buffer = buffer.subarray(at);
    this.#pending = buffer.length ? [buffer] : [];
    this.#length = buffer.length;
    return frames;
  }
}
