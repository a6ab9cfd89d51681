// The frames of `shellring-runner --stdio` this side writes (crates/wire/src/frames.rs): a u32 length of what follows,
// a kind byte, the command's id (u32), the payload; little-endian. The frames the runner writes are read by the native
// relay (crates/node/src/channel_relay.rs), which hands the non-output ones here already split.

/** Every kind by name, its byte and who it goes to. */
export const FRAME_KINDS = {
  start: [0x53, 'runner'], // S
  control: [0x43, 'runner'], // C
  release: [0x52, 'runner'], // R
  stdout: [0x4f, 'host'], // O: never reaches JavaScript (the relay writes it into its capture)
  stderr: [0x45, 'host'], // E: likewise
  status: [0x54, 'host'], // T
  gone: [0x47, 'host'], // G
  look: [0x4c, 'both'], // L
} as const;

export type FrameKind = keyof typeof FRAME_KINDS;

export const FRAME_HEADER = 9;
/** The runner refuses larger frames. */
export const MAX_FRAME = 256 << 20;

/** A frame as the relay hands it over. */
export interface Frame {
  kind: number;
  id: number;
  payload: Buffer;
}

export function encodeFrame(kind: FrameKind, id: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(FRAME_HEADER);
  header.writeUInt32LE(payload.length + 5, 0);
  header.writeUInt8(FRAME_KINDS[kind][0], 4);
  header.writeUInt32LE(id, 5);
  return Buffer.concat([header, payload]);
}

/** True when `frame` is of `kind`. */
export function isKind(frame: Frame, kind: FrameKind): boolean {
  return frame.kind === FRAME_KINDS[kind][0];
}
