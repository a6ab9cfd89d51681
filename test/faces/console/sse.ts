// Reads a Server-Sent Events response into parsed events, with a switch to stop reading (a slow browser).
import { request, type IncomingMessage } from 'node:http';

export interface SseEvent {
  event: string;
  data: any;
}

export interface SseReader {
  events: SseEvent[];
  response: IncomingMessage;
  pause(): void;
  resume(): void;
  close(): void;
}

/**
 * Reads the console's stream as its page does: every output message is acknowledged once read (while not
 * paused), as the page does once it has drawn it.
 */
export function openSse(url: string, token: string): Promise<SseReader> {
  const headers = { authorization: `Bearer ${token}` };
  let stream = '';
  const ack = (seq: number) => {
    const req = request(new URL('/api/stream/ack', url), {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
    });
    req.on('error', () => {});
    req.end(JSON.stringify({ stream, seq }));
  };
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      const events: SseEvent[] = [];
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        buffer += text;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data !== undefined) {
            const parsed = JSON.parse(data);
            events.push({ event, data: parsed });
            if (event === 'hello') stream = parsed.stream;
            if (event === 'output') ack(parsed.seq);
          }
        }
      });
      res.on('error', () => {});
      resolve({
        events,
        response: res,
        pause: () => res.pause(),
        resume: () => res.resume(),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}
