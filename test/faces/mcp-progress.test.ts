// Progress notifications on long tool calls: the official SDK client keeps a call alive past its request timeout
// when it asked for progress, over stdio (the built CLI, default interval) and HTTP (a short interval).
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { serveHttp, type HttpServer } from '../../src/faces/mcp/index.js';
import { progressMessage } from '../../src/contract/index.js';
import { cli, httpTransport, newClient, textOf, workdir, type TestClient } from './helpers.js';

const work = workdir('mcp-progress');
/** Short enough that a few seconds of command see many notifications; the default is 15 s. */
const INTERVAL_MS = 200;
const BYTES = /^(\d+) bytes of output after (\d+) s$/;
/** A command part that waits until the test creates `name` in the working directory. */
const gate = (name: string) => `until [ -e ${name} ]; do sleep 0.05; done`;
let server: HttpServer;
let http: TestClient;

beforeAll(async () => {
  server = await serveHttp({ port: 0, cwd: work, progressIntervalMs: INTERVAL_MS });
  http = newClient('progress-http');
  await http.client.connect(httpTransport(server.url, server.token));
});

afterAll(async () => {
  await http.client.close();
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

async function bash(tc: TestClient, command: string, options: Parameters<TestClient['client']['callTool']>[2] = {}): Promise<CallToolResult> {
  return (await tc.client.callTool({ name: 'bash', arguments: { command, description: 'a long command' } }, CallToolResultSchema, options)) as CallToolResult;
}

describe('progress notifications', () => {
  it('carry the growing byte count of the output so far, with progress increasing every time', async () => {
    const seen: Progress[] = [];
    // Six 1000-byte pieces, each printed once a notification has counted the one before: a notification falls
    // between every two pieces however slowly the host runs.
    const result = await bash(http, `for i in 1 2 3 4 5 6; do head -c 1000 /dev/zero | tr "\\0" x; ${gate('counted-$i')}; done`, {
      onprogress: (progress) => {
        seen.push(progress);
        const count = Number(BYTES.exec(progress.message ?? '')?.[1]);
        if (count > 0) writeFileSync(join(work, `counted-${count / 1000}`), '');
      },
    });
    expect(textOf(result)).toBe('x'.repeat(6000));
    const bytes = seen.map((progress) => Number(BYTES.exec(progress.message ?? '')?.[1]));
    expect(bytes.every((count) => Number.isInteger(count) && count % 1000 === 0 && count <= 6000)).toBe(true);
    // Growing: never smaller than before, and every piece counted along the way.
    for (let i = 1; i < bytes.length; i += 1) expect(bytes[i]!).toBeGreaterThanOrEqual(bytes[i - 1]!);
    for (const count of [1000, 2000, 3000, 4000, 5000, 6000]) expect(bytes).toContain(count);
    for (let i = 1; i < seen.length; i += 1) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
    expect(seen.every((progress) => progress.total === undefined)).toBe(true);
  });

  it('stop before the result: none arrives after it', async () => {
    const errors: Error[] = [];
    http.client.onerror = (error) => void errors.push(error);
    try {
      const seen: Progress[] = [];
      // The command ends once two notifications came.
      const result = await bash(http, `${gate('notified-twice')}; echo quiet`, {
        onprogress: (progress) => {
          seen.push(progress);
          if (seen.length === 2) writeFileSync(join(work, 'notified-twice'), '');
        },
      });
      expect(textOf(result)).toBe('quiet\n');
      expect(seen.length).toBeGreaterThanOrEqual(2);
      // A notification for a finished request reaches the client as an unknown token: ten intervals pass first.
      await new Promise((resolve) => setTimeout(resolve, 10 * INTERVAL_MS));
      expect(errors.map((error) => error.message)).toEqual([]);
    } finally {
      http.client.onerror = undefined;
    }
  });

  it('keep a call alive past the client timeout only when the client resets it on progress', async () => {
    // Without progress the client gives up at its timeout while the command still runs (it waits for the test).
    const lost = await bash(http, `${gate('lost-go')}; echo late`, { timeout: 2_000 }).catch((error: unknown) => error);
    writeFileSync(join(work, 'lost-go'), '');
    expect(lost).toBeInstanceOf(McpError);
    expect((lost as McpError).code).toBe(ErrorCode.RequestTimeout);
    // With progress it lives past twice the timeout: the command ends once a notification comes after that.
    const started = Date.now();
    const kept = await bash(http, `${gate('kept-go')}; echo late`, {
      timeout: 2_000,
      onprogress: () => {
        if (Date.now() - started > 4_000) writeFileSync(join(work, 'kept-go'), '');
      },
      resetTimeoutOnProgress: true,
    });
    expect(textOf(kept)).toBe('late\n');
  });

  it('words the message exactly', () => {
    expect(progressMessage(0, 15_400)).toBe('0 bytes of output after 15 s');
    expect(progressMessage(5_242_880, 90_000)).toBe('5242880 bytes of output after 90 s');
    expect(progressMessage(undefined, 20_999)).toBe('running for 20 s');
  });

  it('refuses an interval over 20 s before anything starts', async () => {
    await expect(serveHttp({ port: 0, cwd: work, progressIntervalMs: 20_001 })).rejects.toThrow(
      'invalid progressIntervalMs: expected a whole number of milliseconds from 1 to 20000, got 20001',
    );
  });

  it(
    'carry a 90 s call over stdio past the SDK default 60 s request timeout, at the default interval',
    async () => {
      const stdio = newClient('progress-stdio');
      await stdio.client.connect(new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp', '--cwd', work], stderr: 'pipe' }));
      try {
        const seen: { at: number; progress: Progress }[] = [];
        const started = Date.now();
        // No `timeout`: the SDK's default of 60 s applies, reset by every notification.
        const result = await bash(stdio, 'sleep 90; echo finished', {
          onprogress: (progress) => seen.push({ at: Date.now() - started, progress }),
          resetTimeoutOnProgress: true,
        });
        expect(textOf(result)).toBe('finished\n');
        expect(Date.now() - started).toBeGreaterThanOrEqual(90_000);
        // At 15, 30, 45, 60 and 75 s (one more may land just before the end).
        expect(seen.length).toBeGreaterThanOrEqual(5);
        const gaps = seen.map((entry, i) => entry.at - (i === 0 ? 0 : seen[i - 1]!.at));
        expect(Math.max(...gaps)).toBeLessThan(20_000);
        expect(seen.every(({ progress }) => /^0 bytes of output after \d+ s$/.test(progress.message ?? ''))).toBe(true);
      } finally {
        await stdio.client.close();
      }
    },
    150_000,
  );
});
