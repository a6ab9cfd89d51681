// The server's memory at its advertised scale: 50 MCP sessions over HTTP each make 200 calls that print 64 KiB, then
// sit idle; what the server keeps for them (/metrics) stays within its budget, and its RSS grows by a bounded slope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadServe, metricSum, scrape, type LoadFigures } from '../../bench/lib/serve-load.js';
import { startServe, type Process } from '../../bench/lib/serve-instances.js';
import { workdir } from './helpers.js';

const TOKEN = 'memory-test-token-0123456789abcdef';
const MiB = 1024 * 1024;
const SESSIONS = 50;
const CALLS = 200;
/** The per-session budget README states: the event store's 512 KiB and the console's 256 KiB. */
const SESSION_BUDGET = 768 * 1024;

let server: Process;
let figures: LoadFigures;

beforeAll(async () => {
  server = await startServe(TOKEN, workdir('serve-memory'));
  figures = await loadServe(server, TOKEN, SESSIONS, CALLS);
  // 10000 calls: about a minute on a quiet 2-core machine, far longer on a loaded one.
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

  it('grows the server RSS by a fixed cost plus at most 4 MiB per session (before the bounds: 23 MiB per session)', () => {
    const growth = (figures.rssAfter - figures.rssBefore) / MiB;
    console.log(
      `serve memory: RSS ${(figures.rssBefore / MiB).toFixed(1)} -> ${(figures.rssAfter / MiB).toFixed(1)} MiB ` +
        `(${(growth / SESSIONS).toFixed(2)} MiB per session), retained ${(figures.retainedAfter! / SESSIONS / 1024).toFixed(1)} KiB per session, ` +
        `${((SESSIONS * CALLS) / (figures.wallMs / 1000)).toFixed(0)} calls/s`,
    );
    // The fixed part: worker threads, the heap's first growth, the console; README states the measured slope.
    expect(growth).toBeLessThan(64 + 4 * SESSIONS);
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
