// Sandbox latency suite: `true` through session.callTool('bash') without a sandbox, with Landlock and with
// bubblewrap (workspace-write), each runtime's own session in a fresh workspace directory.
import { performance } from 'node:perf_hooks';
import { createRuntime, type Runtime, type Session } from '../../src/index.js';
import { asyncRounds, roundRatios, type AsyncCase } from '../lib/async-rounds.js';
import { spread } from '../lib/percentiles.js';
import { find, target, withRatios, type Figure } from '../lib/rows.js';
import { withTempDir } from '../lib/tempdir.js';
import type { SuiteResult } from '../lib/types.js';
import { fmt, median } from '../lib/units.js';

const NONE = 'no sandbox';
const LANDLOCK = 'landlock (workspace-write)';
const BWRAP = 'bubblewrap (workspace-write)';
const ROUNDS = 10;
const PER_ROUND = 10;
const TARGET_ADDED_MS = 2;
/** A confined call runs in its session's sandbox: it costs at most this much more than an unconfined one. */
const TARGET_RATIO = 1.15;

const signed = (ms: number): string => (ms < 0 ? fmt(ms) : `+${fmt(ms)}`);

interface Subject {
  name: string;
  runtime: Runtime;
  session: Session;
  confined: boolean;
}

async function call(subject: Subject): Promise<number> {
  const t0 = performance.now();
  const result = await subject.session.callTool('bash', { command: 'true', description: 'noop' });
  const ms = performance.now() - t0;
  const facts = result.structuredContent as { exitCode?: number; sandbox?: { enforcement?: string } } | undefined;
  if (result.isError || facts?.exitCode !== 0) throw new Error(`${subject.name}: ${result.content[0]?.text}`);
  if (subject.confined !== (facts.sandbox?.enforcement === 'full')) {
    throw new Error(`${subject.name}: enforcement ${facts.sandbox?.enforcement ?? 'none'}`);
  }
  return ms;
}

async function subjects(dir: string): Promise<Subject[]> {
  const make = async (name: string, backend?: 'landlock' | 'bubblewrap'): Promise<Subject> => {
    const runtime = await createRuntime(backend ? { sandbox: { mode: 'workspace-write', backend } } : {});
    return { name, runtime, session: runtime.session({ id: 'bench', cwd: dir }), confined: backend !== undefined };
  };
  return [await make(NONE), await make(LANDLOCK, 'landlock'), await make(BWRAP, 'bubblewrap')];
}

export async function run(): Promise<SuiteResult> {
  const rounds = await withTempDir('sandbox-latency', async (dir) => {
    const all = await subjects(dir);
    try {
      for (const s of all) for (let i = 0; i < 10; i++) await call(s);
      const cases: AsyncCase<number[]>[] = all.map((s) => ({
        name: s.name,
        once: async () => {
          const ms: number[] = [];
          for (let i = 0; i < PER_ROUND; i++) ms.push(await call(s));
          return ms;
        },
      }));
      return await asyncRounds(cases, ROUNDS);
    } finally {
      await Promise.all(all.map((s) => s.runtime.close()));
    }
  });
  const p50s = (name: string): number[] => rounds.get(name)!.map((ms) => spread(ms).p50);
  const figures: Figure[] = [NONE, LANDLOCK, BWRAP].map((name) => {
    const all = spread(rounds.get(name)!.flat());
    const f: Figure = {
      name,
      value: all.p50,
      unit: 'p50 ms',
      extra: {
        'p99 ms': all.p99,
        'max ms': all.max,
        'added p50 ms': median(p50s(name).map((p, r) => p - p50s(NONE)[r]!)),
        'rounds p50 ms': p50s(name),
      },
    };
    if (name !== NONE) {
      f.baseline = NONE;
      f.ratio = median(roundRatios(p50s(name), p50s(NONE)));
    }
    return f;
  });
  const rows = withRatios(figures);
  const landlock = find(rows, LANDLOCK);
  const added = landlock.extra!['added p50 ms'] as number;
  const bwrap = find(rows, BWRAP);
  const bwrapAdded = bwrap.extra!['added p50 ms'] as number;
  return {
    name: 'sandbox-latency',
    description: "latency of `true` through session.callTool('bash'), unconfined vs Landlock vs bubblewrap",
    tables: [{ title: `\`true\` through callTool, ${ROUNDS} x ${PER_ROUND} calls each`, rows }],
    targets: [
      target(
        `Landlock adds < ${TARGET_ADDED_MS} ms at p50`,
        added,
        TARGET_ADDED_MS,
        `${signed(added)} ms (p50 ${fmt(landlock.value)} vs ${fmt(find(rows, NONE).value)} ms)`,
        true,
      ),
      target(
        `bubblewrap adds < ${TARGET_ADDED_MS} ms at p50`,
        bwrapAdded,
        TARGET_ADDED_MS,
        `${signed(bwrapAdded)} ms (p50 ${fmt(bwrap.value)} vs ${fmt(find(rows, NONE).value)} ms)`,
        true,
      ),
      ...[landlock, bwrap].map((row) =>
        target(`${row.name} p50 <= ${TARGET_RATIO}x unconfined`, row.ratio, TARGET_RATIO + 1e-9, `${fmt(row.ratio)}x`, true),
      ),
    ],
    notes: [
      `Three runtimes (createRuntime without and with sandbox {mode: 'workspace-write', backend}), each with one ` +
        'session whose cwd is the same fresh temp dir; 10 warm-up calls each, then ' +
        `${ROUNDS} rounds of ${PER_ROUND} calls per runtime, order rotated.`,
      'p50/p99/max pool every call; added p50 and the ratio are medians of per-round differences and ratios ' +
        'against the unconfined runtime in the same round. Every call is checked: exit code 0, and enforcement ' +
        '"full" exactly when confined. A confined session\'s calls run in its session sandbox, built by its first ' +
        'call (a warm-up call here; see the session-sandboxes suite for that first call).',
    ],
  };
}
