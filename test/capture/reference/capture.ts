// One capture: two streams (tail + spill each), an optional job ring, and the finished flag.
import type { ObserveResult, StreamId, StreamInfo } from '../../../src/capture/types.js';
import type { ResolvedOptions } from './options.js';
import { Ring } from './ring.js';
import { Spill } from './spill.js';
import { Tail } from './tail.js';

const STREAM_NAMES = ['stdout', 'stderr'] as const;

class Stream {
  readonly tail: Tail;
  readonly spill: Spill;

  constructor(cap: number, spillDir: string | undefined, fileName: string, spillCap: number) {
    this.tail = new Tail(cap);
    this.spill = new Spill(spillDir, fileName, cap, spillCap);
  }

  write(data: Uint8Array): void {
    // The spill goes first: at the first overflow it back-fills from the tail before the tail drops anything.
    this.spill.write(this.tail.total, data, () => this.tail.wholeStream());
    this.tail.write(data);
  }

  info(): StreamInfo {
    const info: StreamInfo = {
      total: this.tail.total,
      retained: this.tail.total - this.tail.windowStart(),
      truncated: this.tail.dropped(),
      spill: this.spill.state,
    };
    const spillPath = this.spill.reportedPath();
    if (spillPath !== undefined) info.spillPath = spillPath;
    return info;
  }
}

export class Capture {
  readonly ring: Ring | undefined;
  finished = false;
  private readonly streams: [Stream, Stream];

  constructor(id: number, options: ResolvedOptions) {
    const name = options.spillName ?? `capture-${id}`;
    const { spillDir, spillCap } = options;
    this.streams = [
      new Stream(options.stdoutCap, spillDir, `${name}.stdout.log`, spillCap),
      new Stream(options.stderrCap, spillDir, `${name}.stderr.log`, spillCap),
    ];
    if (options.ring) this.ring = new Ring(options.ring.liveLimit, options.ring.settledLimit);
  }

  write(stream: StreamId, data: Uint8Array): void {
    this.streams[stream].write(data);
    this.ring?.append(STREAM_NAMES[stream], data, false);
  }

  /** Every step is idempotent on its own, so finishing twice changes nothing. */
  finish(): void {
    for (const stream of this.streams) stream.spill.finish();
    this.finished = true;
    this.ring?.settle();
  }

  info(stream: StreamId): StreamInfo {
    return this.streams[stream].info();
  }

  tail(stream: StreamId): Buffer {
    return this.streams[stream].tail.window();
  }

  observe(stream: StreamId, from: number, max: number): ObserveResult {
    return this.streams[stream].tail.observe(from, max, this.finished);
  }

  /** Closes what the capture holds open once it leaves the registry. */
  close(): void {
    for (const stream of this.streams) stream.spill.close();
  }
}
