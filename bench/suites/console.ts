// Console suite: a browser (chromium) follows a job printing 1 GiB through `shellring serve`'s web console:
// server RSS growth against the same job with nobody watching, write-to-page latency, and updates per second.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startServe, type ServeProcess } from '../lib/console-serve.js';
import { percentile } from '../lib/percentiles.js';
import { find, target, withRatios } from '../lib/rows.js';
import type { SuiteResult } from '../lib/types.js';
import { fmt, median, MiB } from '../lib/units.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ROUNDS = 2;
/** 16384 blocks of 64 KiB = 1 GiB; each block starts with the time it was written. */
const JOB =
  `perl -e 'use Time::HiRes qw(time); $| = 1; my $pad = "a" x 65519; ` +
  `for (1..16384) { printf "\\nT=%013d\\n%s", int(time() * 1000), $pad }'`;
const WATCHED = 'followed in chromium';
const ALONE = 'nobody watching';

interface Round {
  growth: number;
  seconds: number;
  latencies: number[];
  updates: number;
}

async function runJob(serve: ServeProcess, page: Page | undefined): Promise<Round> {
  const before = serve.rss();
  let most = before;
  const sampler = setInterval(() => (most = Math.max(most, serve.rss())), 20);
  const started = Date.now();
  const start = await serve.client.callTool({
    name: 'bash',
    arguments: { command: JOB, description: 'Print one gibibyte with timestamps', run_in_background: true },
  });
  const jobId = /bash-\d+/.exec((start.content as { text: string }[])[0]!.text)![0];
  if (page) {
    await page.waitForSelector(`pre[data-output="${jobId}"]`);
    await page.evaluate((id) => {
      const state = { latencies: [] as number[], updates: 0 };
      (window as unknown as { bench: typeof state }).bench = state;
      new MutationObserver((records) => {
        const now = Date.now();
        for (const record of records) {
          for (const node of record.addedNodes) {
            state.updates += 1;
            for (const match of (node.textContent ?? '').matchAll(/T=(\d{13})/g)) state.latencies.push(now - Number(match[1]));
          }
        }
      }).observe(document.querySelector(`pre[data-output="${id}"]`)!, { childList: true });
    }, jobId);
  }
  await serve.client.callTool({ name: 'job_output', arguments: { job_id: jobId, wait: true, timeout_ms: 600_000 } }, undefined, {
    timeout: 600_000,
  });
  const seconds = (Date.now() - started) / 1000;
  clearInterval(sampler);
  const seen = page
    ? await page.evaluate(() => (window as unknown as { bench: { latencies: number[]; updates: number } }).bench)
    : { latencies: [], updates: 0 };
  return { growth: (most - before) / MiB, seconds, latencies: seen.latencies, updates: seen.updates };
}

async function round(browser: Browser, watched: boolean): Promise<Round> {
  const cwd = mkdtempSync(join(tmpdir(), 'shellring-bench-console-'));
  const serve = await startServe(cwd);
  const page = watched ? await browser.newPage() : undefined;
  try {
    if (page) {
      await page.goto(serve.signIn);
      await page.click(`[data-session="${serve.sessionId}"]`);
    }
    // Warm-up: workers, code and the page's first render are in place before RSS is read.
    await serve.client.callTool({ name: 'bash', arguments: { command: 'head -c 1048576 /dev/zero | tr "\\0" a', description: 'Warm up the server' } });
    return await runJob(serve, page);
  } finally {
    await page?.close();
    await serve.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

export async function run(): Promise<SuiteResult> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const alone: Round[] = [];
  const watched: Round[] = [];
  try {
    // Interleaved, so a change in the shared machine's load weighs on both cases alike.
    for (let i = 0; i < ROUNDS; i += 1) {
      alone.push(await round(browser, false));
      watched.push(await round(browser, true));
    }
  } finally {
    await browser.close();
  }
  const latencies = watched.flatMap((r) => r.latencies);
  const p95 = percentile(latencies, 95);
  const updatesPerSecond = median(watched.map((r) => r.updates / r.seconds));
  const rows = withRatios([
    {
      name: ALONE,
      value: median(alone.map((r) => r.growth)),
      unit: 'MiB server RSS growth',
      extra: { 'runs MiB': alone.map((r) => r.growth), 'wall s': median(alone.map((r) => r.seconds)) },
    },
    {
      name: WATCHED,
      value: median(watched.map((r) => r.growth)),
      unit: 'MiB server RSS growth',
      baseline: ALONE,
      extra: {
        'runs MiB': watched.map((r) => r.growth),
        'wall s': median(watched.map((r) => r.seconds)),
        'latency p50 ms': percentile(latencies, 50),
        'latency p95 ms': p95,
        'latency max ms': percentile(latencies, 100),
        'stamps seen': latencies.length,
        'updates/s': updatesPerSecond,
      },
    },
  ]);
  const growth = find(rows, WATCHED).value;
  return {
    name: 'console',
    description: 'a browser follows a job printing 1 GiB through the web console of `shellring serve`',
    tables: [{ title: 'Following 1 GiB of output in chromium', rows }],
    targets: [
      target('console: server RSS growth <= 32 MiB while a browser follows 1 GiB', growth, 32.000001, `${fmt(growth)} MiB (nobody watching: ${fmt(find(rows, ALONE).value)} MiB)`, true),
      target('console: write-to-page latency p95 <= 200 ms', p95, 200.000001, `${fmt(p95)} ms over ${latencies.length} stamps`, true),
    ],
    notes: [
      `Each round is a fresh \`shellring serve\` (createRuntime defaults) and an MCP SDK client; ${ROUNDS} rounds per case, ` +
        'interleaved. The job (perl) writes 16384 blocks of 64 KiB, each starting with the wall-clock millisecond it was written. ' +
        'RSS: the serve process, sampled every 20 ms, peak minus the reading after a 1 MiB warm-up call.',
      'Latency: a MutationObserver in the page takes, for every stamp in each appended output node, the page clock minus ' +
        `the stamp (same machine clock). Updates/s: output nodes appended per second of the job (median of rounds: ${fmt(updatesPerSecond)}).`,
      'The machine is shared with other work while this runs; the figures are indicative.',
    ],
  };
}
