// Many MCP sessions over HTTP each making many calls that print 64 KiB, against a real `shellring serve`: the server's
// RSS and its /metrics retained bytes before and after, for the memory suite and the memory test.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { rssOf, type Process } from './serve-instances.js';

/** 65536 bytes of digits from a bash builtin (no process besides bash), ending in a random number. */
export const CALL_64K = { command: "printf '%065536d' $RANDOM", description: 'print 64 KiB of digits' };

export interface LoadFigures {
  sessions: number;
  callsEach: number;
  /** VmRSS of the serve process before any session, after the calls (sessions open and idle), in bytes. */
  rssBefore: number;
  rssAfter: number;
  /** `shellring_retained_bytes` summed over its stores, after the calls (undefined when the server has no such metric). */
  retainedAfter: number | undefined;
  /** The server's stated budget for retained bytes (`shellring_retained_budget_bytes`), when it states one. */
  retainedBudget: number | undefined;
  wallMs: number;
}

function transport(url: string, token: string): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
}

/** The value of every sample of a metric, summed (undefined when the metric is absent). */
export function metricSum(text: string, name: string): number | undefined {
  let sum: number | undefined;
  for (const line of text.split('\n')) {
    const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`).exec(line);
    if (match) sum = (sum ?? 0) + Number(match[1]);
  }
  return sum;
}

export async function scrape(port: number, token: string): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  return res.text();
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 1000));
/** How long the server is watched once idle: long enough for V8's memory reducer to give back heap slack. */
const IDLE_MS = 10_000;

/** The server's RSS once idle: the lowest of samples taken over IDLE_MS, so a collection that has not run yet (whose
 * timing varies with the machine's load) does not count as memory the sessions keep. */
async function idleRss(pid: number): Promise<number> {
  let lowest = rssOf(pid);
  for (let waited = 0; waited < IDLE_MS; waited += 500) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    lowest = Math.min(lowest, rssOf(pid));
  }
  return lowest;
}

/**
 * Opens `sessions` SDK clients, then each makes `callsEach` calls in a row (all sessions at once), checking every
 * result is the whole 64 KiB; leaves the sessions open and idle while the figures are taken, then closes them.
 */
export async function loadServe(server: Process, token: string, sessions: number, callsEach: number): Promise<LoadFigures> {
  const url = `http://127.0.0.1:${server.port}/mcp`;
  await settle();
  const rssBefore = rssOf(server.child.pid!);
  const clients = await Promise.all(
    Array.from({ length: sessions }, async () => {
      const client = new Client({ name: 'serve-load', version: '1' });
      await client.connect(transport(url, token));
      return client;
    }),
  );
  const t0 = performance.now();
  try {
    await Promise.all(
      clients.map(async (client) => {
        for (let n = 0; n < callsEach; n += 1) {
          const result = (await client.callTool({ name: 'bash', arguments: CALL_64K })) as { content: { text: string }[] };
          const text = result.content[0]!.text;
          // The tail cap (64000) keeps the last bytes and names the spill file with the whole 65536.
          if (!text.includes('[output truncated; full output: /')) throw new Error(`unexpected result: ${text.slice(-200)}`);
        }
      }),
    );
    const wallMs = performance.now() - t0;
    const rssAfter = await idleRss(server.child.pid!);
    const metrics = await scrape(server.port, token);
    return {
      sessions,
      callsEach,
      rssBefore,
      rssAfter,
      retainedAfter: metricSum(metrics, 'shellring_retained_bytes'),
      retainedBudget: metricSum(metrics, 'shellring_retained_budget_bytes'),
      wallMs,
    };
  } finally {
    await Promise.all(
      clients.map(async (client) => {
        await (client.transport as StreamableHTTPClientTransport).terminateSession().catch(() => {});
        await client.close();
      }),
    );
  }
}
