// Executor RSS suite: host RSS growth while 32 commands print 1 GiB each at once, through the executor against
// child_process on the main thread, each case in a fresh process.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RssSample } from '../lib/rss-child.js';
import { find, target, withRatios, type Figure } from '../lib/rows.js';
import type { SuiteResult } from '../lib/types.js';
import { fmt, GiB, MiB } from '../lib/units.js';

const CHILD = fileURLToPath(new URL('../lib/rss-child.js', import.meta.url));
const EXECUTOR = 'executor, 32 x 1 GiB';
const JS = 'child_process + JS tail, 32 x 1 GiB';
const LIMIT_MIB = 64;

function measure(who: string): RssSample {
  const out = execFileSync(process.execPath, ['--expose-gc', CHILD, who], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out) as RssSample;
}

function figure(name: string, s: RssSample, baseline?: string): Figure {
  const f: Figure = {
    name,
    value: (s.max - s.before) / MiB,
    unit: 'MiB peak growth',
    extra: {
      'after MiB': (s.after - s.before) / MiB,
      'rss before MiB': s.before / MiB,
      'wall s': s.seconds,
      'MB/s total': (32 * GiB) / 1e6 / s.seconds,
      samples: s.samples,
    },
  };
  if (baseline !== undefined) f.baseline = baseline;
  return f;
}

export async function run(): Promise<SuiteResult> {
  const rows = withRatios([figure(JS, measure('child_process')), figure(EXECUTOR, measure('executor'), JS)]);
  const row = find(rows, EXECUTOR);
  const base = find(rows, JS);
  return {
    name: 'executor-rss',
    description: 'host RSS growth while 32 commands print 1 GiB each at once (`head -c 1073741824 /dev/zero`)',
    tables: [{ title: 'RSS growth, 32 GiB printed in all', rows }],
    targets: [
      target(
        `executor: host RSS growth < ${LIMIT_MIB} MiB with 32 commands printing 1 GiB each`,
        row.value,
        LIMIT_MIB,
        `${fmt(row.value)} MiB peak (child_process on the main thread: ${fmt(base.value)} MiB)`,
        true,
      ),
    ],
    notes: [
      'Each case runs once in a fresh `node --expose-gc` process: one 1 MiB command first (workers and code loaded), ' +
        'a collection, the RSS reading `before`, then the 32 commands at once with RSS read every 20 ms; ' +
        'peak = max RSS minus before, after = RSS once all 32 results are in.',
      'Executor: LocalExecutor.run, default 2 worker threads, tail only (maxSpillBytes 0). child_process: ' +
        'spawn(bash -c) on the main thread, both pipes read in JS into a 64000-byte Buffer.concat-and-slice tail.',
    ],
  };
}
