// The server's memory at its advertised scale: 50 MCP sessions over HTTP each make 200 calls that print 64 KiB, then
// sit idle; what the server keeps for them (/metrics) stays within its budget, and its RSS grows by a bounded slope
// (measured against a fresh server that served 10 such sessions, so the heap V8 keeps once grown, which varies with the
// Node line, is the fixed part).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadServe, metricSum, scrape, type LoadFigures } from '../../bench/lib/serve-load.js';
import { startServe, type Process } from '../../bench/lib/serve-instances.js';
import { workdir } from './helpers.js';

const TOKEN = 'memory-test-token-0123456789abcdef';
const MiB = 1024 * 1024;
const SESSIONS = 50;
const FEW = 10;
const CALLS = 200;
/** The per-session budget docs/serving.md states: the event store's 512 KiB and the console's 256 KiB. */
const SESSION_BUDGET = 768 * 1024;

let server: Process;
let figures: LoadFigures;
let few: LoadFigures;

beforeAll(async () => {
  const small = await startServe(TOKEN, workdir('serve-memory-few'));
  try {
    few = await loadServe(small, TOKEN, FEW, CALLS);
  } finally {
    await small.stop();
  }
  server = await startServe(TOKEN, workdir('serve-memory'));
  figures = await loadServe(server, TOKEN, SESSIONS, CALLS);
  // 12000 calls: about a minute and a half on a quiet 2-core machine, far longer on a loaded one.
}, 1_800_000);

afterAll(async () => {
  await server?.stop();
});

describe(`${SESSIONS} sessions x ${CALLS} calls of 64 KiB over HTTP`, () => {
  it('keeps at most 1 MiB per idle session (retained bytes on /metrics), within the budget it states', () => {
    expect(figures.retainedAfter).toBeDefined();
    expect(figures.retainedAfter!).toBeGreaterThan(0);
    expect(figures.retainedAfter! / SESSIONS).toBeLessThanOrEqual(SESSION_BUDGET);
    expect(figures.retainedAfter! / SESSIONS).toBeLessThanOrEqual(MiB);
    // The default --max-sessions (500) times the per-session budget.
    expect(figures.retainedBudget).toBe(500 * SESSION_BUDGET);
  });

  it('grows the server RSS by a fixed cost plus at most 4 MiB per session (before the bounds: 22 MiB per session)', () => {
    const growth = (load: LoadFigures) => (load.rssAfter - load.rssBefore) / MiB;
    const slope = (growth(figures) - growth(few)) / (SESSIONS - FEW);
    const fixed = growth(few) - FEW * slope;
    console.log(
      `serve memory: RSS growth ${growth(few).toFixed(1)} MiB for ${FEW} sessions, ${growth(figures).toFixed(1)} MiB for ${SESSIONS} ` +
        `(${slope.toFixed(2)} MiB per session over ${fixed.toFixed(1)} MiB), retained ${(figures.retainedAfter! / SESSIONS / 1024).toFixed(1)} KiB per session, ` +
        `${((SESSIONS * CALLS) / (figures.wallMs / 1000)).toFixed(0)} calls/s, Node ${process.version}`,
    );
    expect(slope).toBeLessThanOrEqual(4);
    // The fixed part: worker threads, the heap V8 keeps once grown (larger from Node 24 on), the console.
    expect(fixed).toBeLessThan(256);
  });

  it('gives the retained bytes back once the sessions are closed', async () => {
    // loadServe closed every session when it returned; the console forgets closed sessions within seconds.
    const deadline = Date.now() + 30_000;
    let retained = Number.POSITIVE_INFINITY;
    while (Date.now() < deadline) {
      retained = metricSum(await scrape(server.port, TOKEN), 'shellring_retained_bytes') ?? Number.POSITIVE_INFINITY;
      if (retained === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(retained).toBe(0);
  });
});
