// HTTP serve suite: 200 concurrent MCP sessions over real HTTP (the SDK client against `shellring serve`) calling
// `echo hi`, next to the same calls through the library in one process; RSS per idle HTTP session; sessions opened
// per second directly and through HAProxy (deploy/haproxy.cfg).
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createRuntime } from '../../src/index.js';
import { percentile } from '../lib/percentiles.js';
import { find, target, withRatios, type Figure } from '../lib/rows.js';
import { rssOf, startProxy, startServe, type Process } from '../lib/serve-instances.js';
import { withTempDir } from '../lib/tempdir.js';
import type { SuiteResult } from '../lib/types.js';
import { fmt, KiB, median } from '../lib/units.js';

const TOKEN = 'bench-token-0123456789abcdef0123';
const SESSIONS = 200;
const CALLS_EACH = 5;
const ROUNDS = 3;
const IDLE_SESSIONS = 200;
const OPENS = 200;
const OPEN_CONCURRENCY = 8;
const ECHO = { command: 'echo hi', description: 'say hi once' };

const HTTP = `serve over HTTP: ${SESSIONS} SDK sessions x ${CALLS_EACH} \`echo hi\``;
const LIB = `library in-process: ${SESSIONS} sessions x ${CALLS_EACH} \`echo hi\``;
const DIRECT = `sessions opened directly (1 instance)`;
const PROXY1 = `sessions opened through HAProxy (1 instance)`;
const PROXY3 = `sessions opened through HAProxy (3 instances)`;

function transport(url: string): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } });
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport(url));
  return client;
}

/** Every session calls `echo hi` CALLS_EACH times in a row, all sessions at once; per-call ms and wall ms. */
async function burst(call: (i: number) => Promise<unknown>): Promise<{ latencies: number[]; wallMs: number }> {
  const latencies: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: SESSIONS }, async (_, i) => {
      for (let n = 0; n < CALLS_EACH; n += 1) {
        const s = performance.now();
        await call(i);
        latencies.push(performance.now() - s);
      }
    }),
  );
  return { latencies, wallMs: performance.now() - t0 };
}

function callFigure(name: string, runs: { latencies: number[]; wallMs: number }[], baseline?: string): Figure {
  const all = runs.flatMap((r) => r.latencies);
  const rates = runs.map((r) => (SESSIONS * CALLS_EACH) / (r.wallMs / 1000));
  const f: Figure = {
    name,
    value: percentile(all, 50),
    unit: 'ms p50 per call',
    extra: { 'p99 ms': percentile(all, 99), 'calls/s (median round)': median(rates), 'calls/s per round': rates, calls: all.length },
  };
  if (baseline) f.baseline = baseline;
  return f;
}

async function openRate(url: string): Promise<number> {
  stage = `sessions opened at ${url}`;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: OPEN_CONCURRENCY }, async () => {
      while (next < OPENS) {
        next += 1;
        const t = transport(url);
        const client = new Client({ name: 'bench-open', version: '1' });
        await client.connect(t);
        await t.terminateSession();
        await client.close();
      }
    }),
  );
  return OPENS / ((performance.now() - t0) / 1000);
}

export async function run(): Promise<SuiteResult> {
  return measure().catch((error: Error & { code?: unknown }) => {
    // fetch() hides the network error in `cause`; the SDK's HTTP errors carry the status in `code`.
    const cause = error.cause ? `: ${String((error.cause as Error).message ?? error.cause)}` : '';
    throw new Error(`${stage}: ${error.message}${cause} (code ${String(error.code)})`, { cause: error });
  });
}

/** What the suite was doing, for the error message of a failed run. */
let stage = 'start';

async function measure(): Promise<SuiteResult> {
  return withTempDir('http', async (dir) => {
    const server = await startServe(TOKEN, dir);
    const url = `http://127.0.0.1:${server.port}/mcp`;
    const runtime = await createRuntime();
    // Every process started, stopped however the suite ends: one left running keeps this process alive.
    const started: Process[] = [server];
    try {
      stage = 'calls';
      // Calls: interleaved rounds, HTTP and library, the same sessions reused across rounds.
      const clients = await Promise.all(Array.from({ length: SESSIONS }, () => connect(url)));
      const sessions = Array.from({ length: SESSIONS }, (_, i) => runtime.session({ id: `bench-${i}`, cwd: dir }));
      await burst((i) => clients[i]!.callTool({ name: 'bash', arguments: ECHO }));
      await burst((i) => sessions[i]!.callTool('bash', ECHO));
      const http: { latencies: number[]; wallMs: number }[] = [];
      const lib: { latencies: number[]; wallMs: number }[] = [];
      for (let r = 0; r < ROUNDS; r += 1) {
        http.push(await burst((i) => clients[i]!.callTool({ name: 'bash', arguments: ECHO })));
        lib.push(await burst((i) => sessions[i]!.callTool('bash', ECHO)));
      }
      await Promise.all(clients.map(async (c) => {
        await (c.transport as StreamableHTTPClientTransport).terminateSession();
        await c.close();
      }));

      stage = 'idle sessions';
      // Idle sessions: server RSS before and after opening them (each SDK client also holds its GET stream).
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const before = rssOf(server.child.pid!);
      const idle: Client[] = [];
      for (let i = 0; i < IDLE_SESSIONS; i += 1) idle.push(await connect(url));
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const after = rssOf(server.child.pid!);
      const perIdle = (after - before) / IDLE_SESSIONS / KiB;
      await Promise.all(idle.map(async (c) => {
        await (c.transport as StreamableHTTPClientTransport).terminateSession();
        await c.close();
      }));

      stage = 'sessions opened';
      // Sessions opened per second: direct, through HAProxy to one instance, through HAProxy to three.
      const others = [await startServe(TOKEN, dir), await startServe(TOKEN, dir)];
      started.push(...others);
      const proxy1 = await startProxy([server.port], dir);
      started.push(proxy1);
      const proxy3 = await startProxy([server.port, ...others.map((o) => o.port)], dir);
      started.push(proxy3);
      const rates = { direct: [] as number[], one: [] as number[], three: [] as number[] };
      for (let r = 0; r < ROUNDS; r += 1) {
        rates.direct.push(await openRate(url));
        rates.one.push(await openRate(`http://127.0.0.1:${proxy1.port}/mcp`));
        rates.three.push(await openRate(`http://127.0.0.1:${proxy3.port}/mcp`));
      }

      const callRows = withRatios([callFigure(LIB, lib), callFigure(HTTP, http, LIB)]);
      const openFigure = (name: string, values: number[], baseline?: string): Figure => {
        const f: Figure = { name, value: median(values), unit: 'sessions/s (median round)', extra: { 'per round': values } };
        if (baseline) f.baseline = baseline;
        return f;
      };
      const openRows = withRatios([openFigure(DIRECT, rates.direct), openFigure(PROXY1, rates.one, DIRECT), openFigure(PROXY3, rates.three, DIRECT)]);
      const httpRow = find(callRows, HTTP);
      const libRow = find(callRows, LIB);
      return {
        name: 'http-serve',
        description: `${SESSIONS} concurrent MCP sessions over HTTP calling \`echo hi\`; RSS per idle HTTP session; sessions opened per second direct and through HAProxy`,
        tables: [
          { title: `${SESSIONS} concurrent sessions, ${CALLS_EACH} calls each, ${ROUNDS} interleaved rounds`, rows: callRows },
          {
            title: `idle HTTP sessions (${IDLE_SESSIONS} SDK clients, each with its GET stream)`,
            rows: withRatios([{ name: 'serve process RSS per idle session', value: perIdle, unit: 'KiB each', extra: { 'RSS before MiB': before / KiB / KiB, 'RSS after MiB': after / KiB / KiB } }]),
          },
          { title: `sessions opened per second (SDK connect + DELETE, ${OPEN_CONCURRENCY} at a time, ${OPENS} per round)`, rows: openRows },
        ],
        targets: [
          target(
            `serve: ${SESSIONS} concurrent HTTP sessions >= 100 echo calls/s`,
            httpRow.extra!['calls/s (median round)'] as number,
            100,
            `${fmt(httpRow.extra!['calls/s (median round)'] as number)} calls/s, p50 ${fmt(httpRow.value)} ms, p99 ${fmt(httpRow.extra!['p99 ms'] as number)} ms (library: ${fmt(libRow.extra!['calls/s (median round)'] as number)} calls/s, p50 ${fmt(libRow.value)} ms)`,
          ),
          target(
            'serve: RSS per idle HTTP session < 256 KiB',
            perIdle,
            256,
            `${fmt(perIdle)} KiB per session (${IDLE_SESSIONS} sessions)`,
            true,
          ),
          target(
            'HAProxy (3 instances) opens sessions at >= 50% of the direct rate',
            find(openRows, PROXY3).ratio,
            0.5,
            `${fmt(find(openRows, PROXY3).value)} vs ${fmt(find(openRows, DIRECT).value)} sessions/s direct (HAProxy to 1 instance: ${fmt(find(openRows, PROXY1).value)})`,
          ),
        ],
        notes: [
          'The server is the real CLI (`shellring serve`, default options, JSON logs on stderr drained by the bench) in ' +
            'its own process; the SDK clients run in the bench process, so client cost is in the HTTP figures. The library ' +
            'baseline calls session.callTool() with createRuntime() defaults in the bench process. Latency is per call, ' +
            'from callTool() to its result; calls/s is all calls of a round over its wall time. Rounds alternate HTTP and library.',
          'Idle RSS: VmRSS of the serve process after opening the sessions minus before, over the count, one second after ' +
            'each step. Opened per second: SDK connect (initialize, initialized, GET stream) then DELETE, 8 clients at a ' +
            'time; every instance runs on this same machine, so three instances share its cores with HAProxy and the clients.',
          'Machine shared with other work while measured: read ratios, not absolute times.',
        ],
      };
    } finally {
      await runtime.close();
      await Promise.all(started.map((p) => p.stop()));
    }
  });
}
