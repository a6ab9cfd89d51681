// Parses a runner's out-of-band status lines from its status socket into events, one at a time.
import { constants } from 'node:os';
import type { Readable } from 'node:stream';

export type RunnerEvent =
  /** The fork server's child says its pid before anything else. */
  | { type: 'runner'; pid: number }
  | { type: 'started'; pid: number; enforcement: string }
  | { type: 'exit'; code: number }
  | { type: 'signal'; signal: string }
  | { type: 'error'; message: string }
  /** The working directory could not be entered: errno of chdir(2). */
  | { type: 'workdir'; errno: number }
  | { type: 'eof' };

export class RunnerStatus {
  #buffer = '';
  #events: RunnerEvent[] = [];
  #waiting: ((event: RunnerEvent) => void) | undefined;
  #ended = false;
  /** Settles when the socket is closed: the runner has exited (or the socket was destroyed). */
  readonly closed: Promise<void>;

  constructor(stream: Readable) {
    this.closed = new Promise((resolve) => stream.once('close', () => resolve()));
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

export function parse(line: string): RunnerEvent {
  const space = line.indexOf(' ');
  const word = space < 0 ? line : line.slice(0, space);
  const rest = space < 0 ? '' : line.slice(space + 1);
  if (word === 'started') {
    const [pid, enforcement = 'none'] = rest.split(' ');
    return { type: 'started', pid: Number(pid), enforcement };
  }
  if (word === 'workdir') return { type: 'workdir', errno: Number(rest) };
  if (word === 'runner') return { type: 'runner', pid: Number(rest) };
  if (word === 'exit') return { type: 'exit', code: Number(rest) };
  if (word === 'signal') return { type: 'signal', signal: signalName(Number(rest)) };
  return { type: 'error', message: rest || line };
}

const SIGNALS: Record<number, string> = Object.fromEntries(
  Object.entries(constants.signals).map(([name, number]) => [number, name]),
);

function signalName(number: number): string {
  return SIGNALS[number] ?? `SIG${number}`;
}
