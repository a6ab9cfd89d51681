// Parses a runner's out-of-band status lines from its status socket into events, one at a time.
import type { Readable } from 'node:stream';
import { parse, type RunnerEvent } from '../src/executor/wire/status.js';

export type { RunnerEvent };

export class RunnerStatus {
  #buffer = '';
  #events: RunnerEvent[] = [];
  #waiting: ((event: RunnerEvent) => void) | undefined;
  #ended = false;
  /** Settles when the runner's end of the socket is closed (its last act: it closes it as it exits, once nothing of
   * its command is left), or when ours is (destroyed). */
  readonly closed: Promise<void>;

  constructor(stream: Readable) {
    // At end-of-file, not at the close that follows a tick later: the command's result then usually finds the
    // runner gone already and says so in one message.
    this.closed = new Promise((resolve) => {
      stream.once('end', () => resolve());
      stream.once('close', () => resolve());
    });
    stream.setEncoding('utf8');
    stream.on('data', (text: string) => {
      this.#buffer += text;
      let newline;
      while ((newline = this.#buffer.indexOf('\n')) >= 0) {
        this.#push(parse(this.#buffer.slice(0, newline)));
        this.#buffer = this.#buffer.slice(newline + 1);
      }
    });
    const end = () => {
      this.#ended = true;
      this.#push({ type: 'eof' });
    };
    stream.on('end', end);
    stream.on('close', end);
    stream.on('error', end);
  }

  next(): Promise<RunnerEvent> {
    const event = this.#events.shift();
    if (event) return Promise.resolve(event);
    if (this.#ended) return Promise.resolve({ type: 'eof' });
    return new Promise((resolve) => (this.#waiting = resolve));
  }

  #push(event: RunnerEvent): void {
    if (event.type === 'eof' && this.#events.some((e) => e.type === 'eof')) return;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (waiting) waiting(event);
    else this.#events.push(event);
  }
}
