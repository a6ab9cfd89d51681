// Memory suite: RSS growth while one capture swallows 1 GiB in 64 KiB chunks, each case in a fresh process.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { MemorySample } from '../lib/memory-child.js';
import { find, target, withRatios, type Figure } from '../lib/rows.js';
import type { SuiteResult, Table, Target } from '../lib/types.js';
import { fmt, MiB } from '../lib/units.js';

const CHILD = fileURLToPath(new URL('../lib/memory-child.js', import.meta.url));
const LIMIT_MIB = 4;

const MODES = [
  { mode: 'spill', title: 'tail + spill', naive: 'naive: concat tail + fs.writeSync' },
  { mode: 'ring', title: 'tail + ring', naive: 'naive: concat tail' },
] as const;

function measure(who: string, mode: string): MemorySample {
  const out = execFileSync(process.execPath, ['--expose-gc', CHILD, who, mode], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out) as MemorySample;
}

function figure(name: string, sample: MemorySample, baseline?: string): Figure {
  const f: Figure = {
    name,
    value: (sample.max - sample.before) / MiB,
    unit: 'MiB peak',
    extra: {
      'after MiB': (sample.after - sample.before) / MiB,
      'rss before MiB': sample.before / MiB,
    },
  };
  if (baseline !== undefined) f.baseline = baseline;
  return f;
}

export async function run(): Promise<SuiteResult> {
  const tables: Table[] = [];
  const targets: Target[] = [];
  for (const { mode, title, naive } of MODES) {
    const figures = [
      figure(naive, measure('naive', mode)),
      figure(`native capture (${title})`, measure('native', mode), naive),
      figure(`reference capture (${title})`, measure('reference', mode), naive),
    ];
    const rows = withRatios(figures);
    tables.push({ title: `RSS growth over 1 GiB, ${title}`, rows });
    const row = find(rows, `native capture (${title})`);
    const after = row.extra?.['after MiB'] as number;
    targets.push(
      target(
        `native capture (${title}) RSS growth < ${LIMIT_MIB} MiB`,
        Math.max(row.value, after),
        LIMIT_MIB,
        `${fmt(row.value)} MiB peak, ${fmt(after)} MiB after`,
        true,
      ),
    );
  }
  return {
    name: 'memory',
    description: 'RSS growth while one capture swallows 1 GiB in 64 KiB chunks (one reused source chunk)',
    tables,
    targets,
    notes: [
      'Each case runs in a fresh `node --expose-gc` process: a 64 MiB warm-up capture, a collection, then the ' +
        'RSS reading `before`, the 1 GiB capture (created inside the measured span), RSS every 1 MiB, `after` at finish.',
      'peak = max RSS during minus before; after = RSS at finish (capture still held) minus before.',
      'The ratio compares with the naive JavaScript approach over the same input.',
    ],
  };
}
