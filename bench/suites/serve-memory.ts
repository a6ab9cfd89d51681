// Serve memory suite: 10 and then 50 MCP sessions over HTTP each making 200 calls that print 64 KiB, against a fresh
// `shellring serve` each; the server's RSS growth per session and its retained bytes (/metrics) against the budget.
import { loadServe, type LoadFigures } from '../lib/serve-load.js';
import { startServe } from '../lib/serve-instances.js';
import { target, withRatios } from '../lib/rows.js';
import { withTempDir } from '../lib/tempdir.js';
import type { SuiteResult } from '../lib/types.js';
import { fmt, KiB, MiB } from '../lib/units.js';

const TOKEN = 'bench-token-0123456789abcdef0123';
const CALLS_EACH = 200;
const RUNS = [10, 50];

async function measure(sessions: number): Promise<LoadFigures> {
  return withTempDir('serve-memory', async (dir) => {
    const server = await startServe(TOKEN, dir);
    try {
      return await loadServe(server, TOKEN, sessions, CALLS_EACH);
    } finally {
      await server.stop();
    }
  });
}

export async function run(): Promise<SuiteResult> {
  const runs: LoadFigures[] = [];
  for (const sessions of RUNS) runs.push(await measure(sessions));
  const rows = runs.map((r) => ({
    name: `${r.sessions} sessions x ${r.callsEach} calls of 64 KiB`,
    value: (r.rssAfter - r.rssBefore) / r.sessions / MiB,
    unit: 'MiB RSS growth per session',
    extra: {
      'RSS before MiB': r.rssBefore / MiB,
      'RSS after MiB': r.rssAfter / MiB,
      'retained KiB per session': r.retainedAfter === undefined ? 'n/a' : r.retainedAfter / r.sessions / KiB,
      'calls/s': (r.sessions * r.callsEach) / (r.wallMs / 1000),
    },
  }));
  const big = runs[runs.length - 1]!;
  const small = runs[0]!;
  // The slope between the two runs: what one more session adds, without the fixed cost of the first ones.
  const slope = (big.rssAfter - big.rssBefore - (small.rssAfter - small.rssBefore)) / (big.sessions - small.sessions) / MiB;
  const retainedPer = big.retainedAfter === undefined ? Number.POSITIVE_INFINITY : big.retainedAfter / big.sessions / KiB;
  return {
    name: 'serve-memory',
    description: `MCP sessions over HTTP, ${CALLS_EACH} calls of 64 KiB each, then idle: server RSS and retained bytes per session`,
    tables: [{ title: `${RUNS.join(' and ')} sessions, ${CALLS_EACH} calls each, a fresh server per run`, rows: withRatios(rows) }],
    targets: [
      target(
        `serve: retained bytes per idle session after ${CALLS_EACH} calls of 64 KiB <= 1 MiB`,
        retainedPer,
        1024,
        `${fmt(retainedPer)} KiB per session (${big.sessions} sessions)`,
        true,
      ),
      target(
        `serve: RSS slope per session after ${CALLS_EACH} calls of 64 KiB < 4 MiB`,
        slope,
        4,
        `${fmt(slope)} MiB per session between ${small.sessions} and ${big.sessions} sessions`,
        true,
      ),
    ],
    notes: [
      'The server is the real CLI (`shellring serve`, default options, console included) in its own process; SDK clients ' +
        "in the bench process call bash with `printf '%065536d' $RANDOM` (65536 bytes, past the 64000-byte " +
        'tail cap, so each call also writes a spill file), one call at a time per session, every session at once.',
      'RSS is VmRSS of the serve process one second before the sessions open and one second after the last call, the ' +
        'sessions still open and idle. Retained bytes are the sum of shellring_retained_bytes on /metrics at that point.',
      'Machine shared with other work while measured: the figures move with the load.',
    ],
  };
}
