// The capture interface shared by the native binding and the TypeScript reference model (semantics: crates/core/README.md).

/** 0 = stdout, 1 = stderr. */
export type StreamId = 0 | 1;
export const STDOUT = 0 satisfies StreamId;
export const STDERR = 1 satisfies StreamId;
/** Both streams, stdout first (the order results and reads report them in). */
export const STREAMS = [STDOUT, STDERR] as const;
export type ChunkKind = 'stdout' | 'stderr' | 'log';

export interface RingOptions {
  /** Bytes retained while the job is live. Default 262144. */
  liveLimit?: number;
  /** Bytes retained after the terminal read. Default 16384. */
  settledLimit?: number;
}

export interface CaptureOptions {
  /** Tail cap of stdout in bytes. Default 64000. */
  stdoutCap?: number;
  /** Tail cap of stderr in bytes. Default 64000. */
  stderrCap?: number;
  /** A private (0700) directory for spill files; without it an overflowing stream's spill is unavailable. */
  spillDir?: string;
  /** File name stem inside spillDir; files are `<spillName>.stdout.log` / `<spillName>.stderr.log`. Default `capture-<id>`. */
  spillName?: string;
  /** Largest spill file in bytes; past it the file is removed. Default 67108864. */
  spillCap?: number;
  /** Give the capture a job ring (off by default). */
  ring?: boolean | RingOptions;
}

export type SpillState = 'none' | 'active' | 'complete' | 'unavailable';

export interface StreamInfo {
  /** Every byte ever written to the stream. */
  total: number;
  /** Bytes in the retained tail window. */
  retained: number;
  /** True when bytes were dropped from the tail. */
  truncated: boolean;
  spill: SpillState;
  /** Present while the spill is active or complete. */
  spillPath?: string;
}

export interface ObserveResult {
  data: Buffer;
  /** Absolute stream offset of data[0]. */
  from: number;
  /** Offset to pass to the next observe. */
  next: number;
  /** True when bytes between the requested offset and `from` were no longer retained. */
  lossy: boolean;
}

export interface RingSegment {
  kind: ChunkKind;
  /** Bytes were lost before this chunk. */
  gap: boolean;
  data: Buffer;
}

export interface RingReadMeta {
  from: number;
  to: number;
  lossy: boolean;
  total: number;
  earliest: number;
  settled: boolean;
}

export interface RingRead extends RingReadMeta {
  segments: RingSegment[];
}

/** A read into a caller's buffer: the bytes are `buffer.subarray(0, bytes)`, split by `segments`. */
export interface RingReadInto extends RingReadMeta {
  bytes: number;
  segments: { kind: ChunkKind; gap: boolean; length: number }[];
}

export interface RingState {
  total: number;
  earliest: number;
  consumer: number;
  settled: boolean;
  terminalRead: boolean;
  retained: number;
}

/** Operations on captures held in a registry by numeric id. Unknown ids throw `unknown capture <id>`. */
export interface CaptureBackend {
  readonly kind: 'native' | 'reference';
  create(options?: CaptureOptions): number;
  write(id: number, stream: StreamId, data: Uint8Array): void;
  finish(id: number): void;
  info(id: number, stream: StreamId): StreamInfo;
  tail(id: number, stream: StreamId): Buffer;
  /** The tail decoded as `tail(...).toString('utf8')` would. */
  tailText(id: number, stream: StreamId): string;
  observe(id: number, stream: StreamId, from: number, max: number): ObserveResult;
  ringAppend(id: number, kind: ChunkKind, data: Uint8Array, gap: boolean): void;
  ringRead(id: number, max: number): RingRead;
  ringReadInto(id: number, buffer: Buffer): RingReadInto;
  ringObserve(id: number, from: number, max: number): RingRead;
  ringSettle(id: number): void;
  ringState(id: number): RingState;
  free(id: number): void;
}
