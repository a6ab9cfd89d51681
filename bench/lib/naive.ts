// The approach a capture replaces: keep the tail by concatenating every chunk and slicing off the end.

/** The tail kept by the naive approach: `Buffer.concat([tail, chunk]).subarray(-cap)` per chunk. */
export class NaiveTail {
  private tail: Buffer = Buffer.alloc(0);

  constructor(private readonly cap: number) {}

  write(chunk: Buffer): void {
    this.tail = Buffer.concat([this.tail, chunk]).subarray(-this.cap);
  }

  get bytes(): Buffer {
    return this.tail;
  }
}
