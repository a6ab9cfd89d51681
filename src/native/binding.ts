// The raw shape of the napi-rs addon (crates/node): what the .node file exports, and the tables its reads fill.

/** What a read policy names on this host: the homes, the denied entries expanded (`~/` under every home, `*` in the
 * last component), the toolchains PATH leads to under a home, where /etc/resolv.conf leads out of /etc, and the
 * directories whose entries decided it. */
export interface HostReadPaths {
  homes: string[];
  denied: string[];
  toolchains: string[];
  resolver?: string | null;
  consulted: string[];
}

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

/**
 * A read table: a `Float64Array` the caller owns, which ringRead, ringObserve and ringReadInto fill instead of
 * returning objects (N-API builds objects property by property; JS builds them far faster from numbers).
 * Header, at these indices, then one `kind`, `gap`, `length` triple per segment from `READ_HEADER` on.
 */
export const ReadTable = {
  bytes: 0,
  from: 1,
  to: 2,
  /** 0 or 1. */
  lossy: 3,
  total: 4,
  earliest: 5,
  /** 0 or 1. */
  settled: 6,
  /** The number of segments; the only entry written when the table is too short for them. */
  segments: 7,
} as const;
export const READ_HEADER = 8;
/** Numbers per segment: `kind` (a `ChunkCode`), `gap` (0 or 1), `length`. */
export const SEGMENT_WIDTH = 3;

/** Chunk kinds as the binding takes and reports them. */
export const ChunkCode = { stdout: 0, stderr: 1, log: 2 } as const;

/** What `observe` writes to its table, at these indices. */
export const ObserveTable = {
  from: 0,
  next: 1,
  /** 0 or 1. */
  lossy: 2,
} as const;
export const OBSERVE_TABLE = 3;
/** What `ringState` writes to its table, at these indices. */
export const StateTable = {
  total: 0,
  earliest: 1,
  consumer: 2,
  /** 0 or 1. */
  settled: 3,
  /** 0 or 1. */
  terminalRead: 4,
  retained: 5,
} as const;
export const STATE_TABLE = 6;

/**
 * The addon's exports. Every function is synchronous and throws an Error with a `code`:
 * `SHELLRING_UNKNOWN_CAPTURE`, `SHELLRING_NO_RING`, `SHELLRING_INVALID_OPTIONS`, `SHELLRING_INVALID_ARGUMENT`,
 * `SHELLRING_BUFFER_TOO_SMALL`, `SHELLRING_NAPI` (Node could not create a Buffer), or `SHELLRING_PANIC` when the
 * native code panicked (the process goes on).
 */
export interface NativeBinding {
  create(options?: NativeCaptureOptions | null): number;
  /** `stream` is 0 (stdout) or 1 (stderr); `data` is any Uint8Array, read in place. */
  write(capture: number, stream: number, data: Uint8Array): void;
  finish(capture: number): void;
  info(capture: number, stream: number): NativeStreamInfo;
  /** A copy in a new Buffer (memory V8 owns, freed by the collector like any Buffer). */
  tail(capture: number, stream: number): Buffer;
  /**
   * The tail decoded as `tail(...).toString('utf8')` would; a long ASCII tail is an external string, whose characters
   * stay outside the V8 heap (no young collection copies them) until the collector lets it go.
   */
  tailText(capture: number, stream: number): string;
  /** Returns the bytes in a new Buffer and writes `from`, `next`, `lossy` to `table` (`OBSERVE_TABLE` numbers). */
  observe(capture: number, stream: number, from: number, max: number, table: Float64Array): Buffer;
  /** `kind` is a `ChunkCode` (the fast path) or the kind's name. */
  ringAppend(capture: number, kind: number | string, data: Uint8Array, gap: boolean): void;
  /**
   * A consumer read: the bytes in one new Buffer, whose consecutive runs are the segments of the read table.
   * `null`, with nothing read, when `table` is too short for the segments (their count is then in the table).
   */
  ringRead(capture: number, max: number, table: Float64Array): Buffer | null;
  /**
   * A consumer read into `buffer` from its start (its length bounds the read), filling the read table; false,
   * with nothing read, when `table` is too short for the segments.
   */
  ringReadInto(capture: number, buffer: Uint8Array, table: Float64Array): boolean;
  /** An observer read; returns like `ringRead`. */
  ringObserve(capture: number, from: number, max: number, table: Float64Array): Buffer | null;
  ringSettle(capture: number): void;
  /** Writes the ring's state to `table` (`STATE_TABLE` numbers). */
  ringState(capture: number, table: Float64Array): void;
  free(capture: number): void;
  /** A pipe for a child's stdout or stderr: `[readFd, writeFd]`, both close-on-exec, the read end non-blocking. */
  pipe(): [number, number];
  /** A connected unix socket pair, close-on-exec: `packets` keeps message boundaries. `[mine, theirs]`, mine
   * non-blocking. */
  socketpair(packets: boolean): [number, number];
  /** Sends `fds` (SCM_RIGHTS) with `payload` (one byte when absent) over a socket without blocking: 0 when sent,
   * else the errno (the caller keeps them). */
  sendFds(socket: number, fds: number[], payload?: Buffer): number;
  /** The domain network mode's proxy: takes the listener a session sandbox sent on `channel` (the caller closes its
   * end) and serves it for session `key` under the policy `netSetPolicy` gave (every host refused until then). */
  netAttach(key: string, channel: number): void;
  /** Sets a session's network policy, live; throws `SHELLRING_INVALID_ARGUMENT` for an entry it cannot read. */
  netSetPolicy(key: string, policy: NativeNetPolicy): void;
  /** Forgets the session: its listener is no longer accepted on. */
  netDetach(key: string): void;
  /** The number of the session's last refused connection (0: none). */
  netLastRefusal(key: string): number;
  /** The session's refused connections numbered after `after`, oldest first. */
  netRefusals(key: string, after: number): NativeNetRefusal[];
  /** Where the proxy's questions about unlisted hosts go, for sessions whose policy asks (one listener per process,
   * held weakly: it keeps no process alive). Every question must be answered with `netAnswer`. */
  netOnAsk(listener: (key: string, host: string, port: number) => void): void;
  /** Answers the session's open question about `host`:`port`: `once`, `session`, `rejected`, `unanswered` or
   * `nobody`; false when none is open. */
  netAnswer(key: string, host: string, port: number, answer: 'once' | 'session' | 'rejected' | 'unanswered' | 'nobody'): boolean;
  /** Closes an fd from `pipe` (fs.closeSync would warn in a worker: the fd was not opened through fs). */
  closeFd(fd: number): void;
  /** The native reactor drains `fd` into the capture's stream; the capture owns `fd` from now on. */
  attachReader(capture: number, stream: number, fd: number): void;
  /**
   * Ends the capture once every attached pipe reached end-of-file, or after `withinMs`, reading first every byte
   * the pipes hold then; resolves (an event from the reactor, not a poll) once the capture is finished. With
   * `withinMs` Infinity there is no deadline: it resolves at end-of-file, or with a later drain that has one.
   */
  drain(capture: number, withinMs: number): Promise<void>;
  /**
   * Relays a `shellring-runner --stdio` channel whose stdout is the pipe read end `fd` (owned by the relay from now
   * on): a native thread writes each routed command's output straight into its capture. Returns the relay's id.
   */
  relayStart(fd: number): number;
  /** Sends the channel command `command`'s output to `capture`. */
  relayRoute(relay: number, command: number, capture: number): void;
  relayUnroute(relay: number, command: number): void;
  /** The next batch of the channel's other frames (read whole, in order); null once it ended and all were taken;
   * rejects on a corrupt stream. */
  relayNext(relay: number): Promise<{ kind: number; id: number; payload: Buffer }[] | null>;
  /** True once every attached pipe reached end-of-file. */
  readersDone(capture: number): boolean;
  /** Marks a spill root as a live runtime's: returns the fd that holds its lock (close it with `closeFd`). */
  lockSpillRoot(root: string): number;
  /** Removes the spill roots under `parent` whose lock no live runtime holds; returns how many. */
  reclaimSpillRoots(parent: string): number;
  /** The same sweep on a libuv thread (crashed runtimes' spill and temp roots); resolves with how many. */
  reclaimRootsInBackground(parent: string): Promise<number>;
  /** What read-deny entries and a PATH name on this host now, derived on a libuv thread (crates/hostpaths). */
  hostReadPaths(entries: string[], path: string, home: string): Promise<HostReadPaths>;
  /** A number that changes whenever this process's environment (what `process.env` holds) changed since the last
   * call; equal numbers, equal environments. */
  environVersion(): number;
  /** Marks this process non-dumpable: same-uid processes cannot read its /proc environ or memory, nor ptrace it. */
  setNonDumpable(): void;
  /** Whether this process is dumpable. */
  isDumpable(): boolean;
  /** The size of the terminal `fd` refers to, as the kernel holds it now; null when `fd` is not a terminal. */
  terminalSize(fd: number): { cols: number; rows: number } | null;
  /** A small file (of /proc) read whole, as latin1 text; the errno when it could not be read. */
  readProcText(path: string): string | number;
  /** Fixes glibc's mmap and trim thresholds so large freed blocks go back to the system; false off glibc. */
  releaseLargeBlocks(): boolean;
  /**
   * Every simple command of a bash script, in source order, as the JSON text of a `ParsedScript`
   * (src/policy/parse.ts): its words after leading assignments, null where a word is not literal, its text and its
   * standard input; `error` when part of the script did not parse; the functions it defines; the variables it sets.
   */
  parseCommands(script: string): string;
  /** Panics inside native code on purpose; for tests of the panic boundary. */
  panicForTest(): void;
}

/** A session's network policy as the proxy takes it. */
export interface NativeNetPolicy {
  allow: string[];
  deny: string[];
  /** Entry text (or `*` for a host on neither list) → the reason a refusal gives. */
  reasons: Record<string, string>;
  /** Test-only: names the proxy answers with these addresses, unchecked. */
  hostMap: Record<string, string>;
  /** A host on neither list is put to a person (`netOnAsk`) instead of refused at once. */
  ask: boolean;
}

/** One connection the proxy refused. */
export interface NativeNetRefusal {
  seq: number;
  host: string;
  port: number;
  reason: string;
  /** The line the refused client read: the contract's `networkBlocked` text. */
  line: string;
}
