// The raw shape of the napi-rs addon (crates/node): what the .node file exports, before any conversion.

export interface NativeRingOptions {
  liveLimit?: number;
  settledLimit?: number;
}

export interface NativeCaptureOptions {
  stdoutCap?: number;
  stderrCap?: number;
  spillDir?: string;
  spillName?: string;
  spillCap?: number;
  ring?: boolean | NativeRingOptions;
}

export interface NativeStreamInfo {
  total: number;
  retained: number;
  truncated: boolean;
  /** `none` | `active` | `complete` | `unavailable`. */
  spill: string;
  spillPath?: string;
}

export interface NativeObserveResult {
  data: Buffer;
  from: number;
  next: number;
  lossy: boolean;
}

export interface NativeReadMeta {
  from: number;
  to: number;
  lossy: boolean;
  total: number;
  earliest: number;
  settled: boolean;
}

export interface NativeRingRead extends NativeReadMeta {
  /** `kind` is `stdout` | `stderr` | `log`. */
  segments: { kind: string; gap: boolean; data: Buffer }[];
}

export interface NativeRingReadInto extends NativeReadMeta {
  bytes: number;
  segments: { kind: string; gap: boolean; length: number }[];
}

export interface NativeRingState {
  total: number;
  earliest: number;
  consumer: number;
  settled: boolean;
  terminalRead: boolean;
  retained: number;
}

/**
 * The addon's exports. Every function is synchronous and throws an Error with a `code`:
 * `SHELLRING_UNKNOWN_CAPTURE`, `SHELLRING_NO_RING`, `SHELLRING_INVALID_OPTIONS`, `SHELLRING_INVALID_ARGUMENT`,
 * `SHELLRING_BUFFER_TOO_SMALL`, or `SHELLRING_PANIC` when the native code panicked (the process goes on).
 */
export interface NativeBinding {
  create(options?: NativeCaptureOptions | null): number;
  /** `stream` is 0 (stdout) or 1 (stderr); `data` is any Uint8Array, read in place. */
  write(capture: number, stream: number, data: Uint8Array): void;
  finish(capture: number): void;
  info(capture: number, stream: number): NativeStreamInfo;
  tail(capture: number, stream: number): Buffer;
  observe(capture: number, stream: number, from: number, max: number): NativeObserveResult;
  ringAppend(capture: number, kind: string, data: Uint8Array, gap: boolean): void;
  ringRead(capture: number, max: number): NativeRingRead;
  /** Fills `buffer` from its start; its length bounds the read. */
  ringReadInto(capture: number, buffer: Uint8Array): NativeRingReadInto;
  ringObserve(capture: number, from: number, max: number): NativeRingRead;
  ringSettle(capture: number): void;
  ringState(capture: number): NativeRingState;
  free(capture: number): void;
  /** A pipe for a child's stdout or stderr: `[readFd, writeFd]`, both close-on-exec, the read end non-blocking. */
  pipe(): [number, number];
  /** Closes an fd from `pipe` (fs.closeSync would warn in a worker: the fd was not opened through fs). */
  closeFd(fd: number): void;
  /** A native thread drains `fd` into the capture's stream; the capture owns `fd` from now on. */
  attachReader(capture: number, stream: number, fd: number): void;
  /** True once every attached pipe reached end-of-file. */
  readersDone(capture: number): boolean;
  /** Panics inside native code on purpose; for tests of the panic boundary. */
  panicForTest(): void;
}
