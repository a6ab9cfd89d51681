// Writing to the CLI's streams and waiting until the bytes are handed off, so an exit right after loses nothing.
import type { Writable } from 'node:stream';

export interface CliIO {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable;
}

export function write(stream: Writable, text: string): Promise<void> {
  if (text === '') return Promise.resolve();
  return new Promise((resolve) => stream.write(text, () => resolve()));
}

/** Resolves with the first of these signals to arrive; the listeners go away with it. */
export function onceSignal(signals: NodeJS.Signals[], act: (signal: NodeJS.Signals) => void): () => void {
  const handler = (signal: NodeJS.Signals) => {
    off();
    act(signal);
  };
  const off = () => {
    for (const signal of signals) process.off(signal, handler);
  };
  for (const signal of signals) process.on(signal, handler);
  return off;
}

export const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };
