// Refusals cost nothing: a request refused before authentication, or for a body over the limit, ends its connection
// without the server reading the rest of the body; a gigabyte pushed at it costs the server next to no CPU.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { startServe, type Process } from '../../bench/lib/serve-instances.js';
import { workdir } from './helpers.js';

const TOKEN = 'refusal-test-token-0123456789abcdef';
const GiB = 1024 * 1024 * 1024;
const MiB = 1024 * 1024;

let server: Process;

beforeAll(async () => {
  server = await startServe(TOKEN, workdir('refusals'));
});

afterAll(async () => {
  await server?.stop();
});

/** CPU seconds (user + system) the process has used. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Push {
  /** The status line the server answered with. */
  status: string;
  response: string;
  /** Body bytes the client managed to hand to its socket before the connection ended. */
  written: number;
  /** From the end of the headers to the connection's end, in ms. */
  closedAfterMs: number;
}

/** Sends `head` and then pushes body bytes as fast as the connection takes them, until it ends (or `limit` bytes). */
function push(head: string, limit = GiB): Promise<Push> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    const chunk = Buffer.alloc(256 * 1024, 'x');
    let written = 0;
    let response = '';
    let started = 0;
    let ended = false;
    const finish = () => {
      if (ended) return;
      ended = true;
      resolve({ status: response.split('\r\n')[0] ?? '', response, written, closedAfterMs: performance.now() - started });
    };
    const pump = () => {
      while (!ended && written < limit) {
        written += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
    };
    socket.on('data', (data) => (response += data.toString('latin1')));
    // A refusal ends the connection (a FIN after the answer, then a reset of the unread rest): the end this test waits for.
    socket.on('error', finish);
    socket.on('close', finish);
    socket.on('connect', () => {
      socket.write(head);
      started = performance.now();
      pump();
    });
    setTimeout(() => reject(new Error(`connection still open after 60 s, ${written} bytes written`)), 60_000).unref();
  });
}

function headers(lines: string[]): string {
  return [...lines, `Host: 127.0.0.1:${server.port}`, 'Content-Type: application/json', 'Accept: application/json, text/event-stream', '', ''].join('\r\n');
}

describe('refusals', () => {
  // Each refusal five times: before the server lingered, the reset of a socket closed with its body unread overtook
  // the answer on loopback in most refusals (the client's kernel then dropped it), not in all.
  const TIMES = 5;

  it('an unauthenticated 1 GiB body: 401, the connection closed, the body never read', async () => {
    for (let i = 0; i < TIMES; i++) {
      const cpu = cpuSeconds(server.child.pid!);
      const result = await push(headers(['POST /mcp HTTP/1.1', `Content-Length: ${GiB}`]));
      const used = cpuSeconds(server.child.pid!) - cpu;
      console.log(`unauthenticated 1 GiB: closed after ${result.closedAfterMs.toFixed(0)} ms, ${(result.written / MiB).toFixed(1)} MiB written by the client, server CPU ${used.toFixed(2)} s`);
      expect(result.status).toBe('HTTP/1.1 401 Unauthorized');
      expect(result.response.toLowerCase()).toContain('connection: close');
      // What the kernel's socket buffers took before the close, not the gigabyte (reading it took 8-12 s of CPU).
      expect(result.written).toBeLessThan(64 * MiB);
      expect(result.closedAfterMs).toBeLessThan(5000);
      expect(used).toBeLessThan(1);
    }
  });

  it('an unauthenticated chunked body is refused the same way', async () => {
    for (let i = 0; i < TIMES; i++) {
      // One chunk of 1 GiB announced, then its bytes.
      const result = await push(`${headers(['POST /mcp HTTP/1.1', 'Transfer-Encoding: chunked'])}40000000\r\n`);
      expect(result.status).toBe('HTTP/1.1 401 Unauthorized');
      expect(result.written).toBeLessThan(64 * MiB);
      expect(result.closedAfterMs).toBeLessThan(5000);
    }
  });

  it('a declared body over the limit: 413 before any of it is read, the connection closed', async () => {
    const result = await push(headers(['POST /mcp HTTP/1.1', `Authorization: Bearer ${TOKEN}`, `Content-Length: ${GiB}`]));
    expect(result.status).toBe('HTTP/1.1 413 Payload Too Large');
    expect(result.written).toBeLessThan(64 * MiB);
  });

  it('a chunked body over the limit: refused as it arrives, past the 4 MiB limit, not at its end', async () => {
    // Chunked framing: one chunk header, then bytes; the server stops at the limit whatever the framing says next.
    const result = await push(`${headers(['POST /mcp HTTP/1.1', `Authorization: Bearer ${TOKEN}`, 'Transfer-Encoding: chunked'])}40000000\r\n`);
    expect(result.status).toBe('HTTP/1.1 413 Payload Too Large');
    expect(result.written).toBeLessThan(64 * MiB);
  });

  it('the server still answers after the refusals', async () => {
    const res = await fetch(`http://127.0.0.1:${server.port}/healthz`);
    expect(res.status).toBe(200);
  });
});
