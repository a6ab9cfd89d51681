// Which revision a stdio connection speaks, read from its first message (as the specification has a dual-era server
// decide): an `initialize`, or anything without the per-request version in `_meta`, opens a 2025-11-25 connection.
import { PassThrough, type Readable } from 'node:stream';

export const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';
/** The revisions served through the per-request envelope. */
export const MODERN_VERSIONS: readonly string[] = ['2026-07-28'];

export type Era = 'legacy' | 'modern';

export function eraOfMessage(line: string): Era {
  try {
    const message = JSON.parse(line) as { method?: unknown; params?: { _meta?: Record<string, unknown> } };
    if (message.method === 'initialize') return 'legacy';
    return typeof message.params?._meta?.[PROTOCOL_VERSION_META_KEY] === 'string' ? 'modern' : 'legacy';
  } catch {
    return 'legacy';
  }
}

/**
 * Waits for the first line of `input`, decides the era from it, and hands back a stream that replays that line and
 * then carries the rest. Input that ends before a first line is a 2025 connection that said nothing.
 */
export function readOpening(input: Readable): Promise<{ era: Era; stream: Readable }> {
  return new Promise((resolve) => {
    const stream = new PassThrough();
    const chunks: Buffer[] = [];
    const settle = (era: Era) => {
      input.off('data', onData);
      input.off('end', onEnd);
      for (const chunk of chunks) stream.write(chunk);
      input.pipe(stream);
      resolve({ era, stream });
    };
    const onData = (chunk: Buffer) => {
      chunks.push(Buffer.from(chunk));
      const all = Buffer.concat(chunks);
      const newline = all.indexOf(10);
      if (newline >= 0) settle(eraOfMessage(all.subarray(0, newline).toString('utf8')));
    };
    const onEnd = () => {
      settle('legacy');
      stream.end();
    };
    input.on('data', onData);
    input.once('end', onEnd);
  });
}
