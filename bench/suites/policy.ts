// Command policy suite: what checking a command costs (typical one-liners, with wrappers, global options and a
// here-document among them; a 10 KB script) against the parse alone, and what a 100-rule policy adds to the bash
// tool's `true`, interleaved with a runtime without one.
import { performance } from 'node:perf_hooks';
import { check, createRuntime, loadPolicy, type PolicyRule, type Session } from '../../src/index.js';
import { parseScript } from '../../src/policy/parse.js';
import { sequentialMs } from '../lib/timed.js';
import { atMost } from '../lib/at-most.js';
import { asyncRounds, roundRatios } from '../lib/async-rounds.js';
import { spread } from '../lib/percentiles.js';
import { find, withRatios, type Figure } from '../lib/rows.js';
import type { SuiteResult } from '../lib/types.js';
import { fmt, median } from '../lib/units.js';

const TYPICAL = [
  'ls -la',
  'git status',
  'npm test 2>&1 | tail -20',
  'cd src && grep -rn "TODO" . | head',
  'FOO=1 make lint 2>&1 | tee log',
  'timeout 30 cargo test --release -p core',
  "find . -name '*.ts' | xargs wc -l | sort -n | tail -5",
  'if [ -f package.json ]; then cat package.json; fi',
  "bash -c 'echo $HOME && ls'",
  'git diff HEAD~1 -- src/ | head -100',
  'git -C ../repo --no-pager log --oneline -5',
  'kubectl -n prod get pods -o wide',
  'python3 -m pip install -r requirements.txt',
  'sudo -u app env FOO=1 setsid -w timeout 60 node server.js',
  "bash <<'EOF'\ncd /tmp && ls\nEOF",
];
const CHECKS = 2_000;
const SCRIPT_CHECKS = 200;
// Many short rounds: the two runtimes alternate every few calls, so both see the machine in the same state.
const ROUNDS = 100;
const PER_ROUND = 4;
const WARMUP = 20;
const TARGET_TYPICAL_US = 50;
const TARGET_SCRIPT_US = 1_000;
const TARGET_ADDED_MS = 0.1;

/** 100 rules of every decision over many names, as an operator's policy might hold. */
function hundredRules(): PolicyRule[] {
  const rules: PolicyRule[] = [];
  for (let i = 0; i < 40; i++) rules.push({ decision: 'deny', command: [`tool${i}`, ['--force', '-f']], message: `tool${i} may not force` });
  for (let i = 0; i < 20; i++) rules.push({ decision: 'ask', command: [`deploy${i}`, 'prod'], message: 'a person approves production' });
  const allowed = ['true', 'ls', 'git', 'npm', 'make', 'cat', 'grep', 'head', 'tail', 'tee', 'find', 'xargs', 'wc', 'sort', 'cargo', 'echo', 'cd', 'bash'];
  for (const name of allowed) rules.push({ decision: 'allow', command: [name] });
  while (rules.length < 97) rules.push({ decision: 'allow', command: [`helper${rules.length}`] });
  rules.push({ decision: 'deny', command: ['rm', ['-rf', '-fr']], message: 'no recursive removal' });
  rules.push({ decision: 'deny', command: ['git', 'push', ['--force', '-f']], message: 'force-pushing is not allowed here' });
  rules.push({ decision: 'ask', command: ['npm', 'publish'], message: 'publishing needs a person' });
  return rules;
}

/** About 10 KB of an ordinary build script: functions, loops, conditionals, pipes, substitutions. */
function tenKilobyteScript(): string {
  const lines = ['set -euo pipefail', 'log() { echo "[$(date +%T)] $*" >&2; }'];
  for (let i = 0; lines.join('\n').length < 10_000; i++) {
    lines.push(
      `if [ -d "pkg${i}" ]; then`,
      `  log "building pkg${i}"`,
      `  (cd "pkg${i}" && npm test 2>&1 | tee "../logs/pkg${i}.log" | tail -5)`,
      `  for f in pkg${i}/src/*.ts; do grep -c "TODO" "$f" || true; done | sort -n | tail -1`,
      `  count=$(find "pkg${i}" -name '*.ts' | wc -l)`,
      'fi',
    );
  }
  return lines.join('\n');
}

/** Wall µs of each call, and the process's mean CPU µs per call (steadier than wall time on a loaded host). */
function timeEach(body: () => void, times: number): { us: number[]; cpuUs: number } {
  const us: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < times; i++) {
    const start = performance.now();
    body();
    us.push((performance.now() - start) * 1000);
  }
  const used = process.cpuUsage(cpu);
  return { us, cpuUs: (used.user + used.system) / times };
}

/** Samples of several commands, timed command by command. */
function timeAll(commands: readonly string[], body: (command: string) => void, times: number): { us: number[]; cpuUs: number } {
  const parts = commands.map((command) => timeEach(() => body(command), times));
  return { us: parts.flatMap((part) => part.us), cpuUs: parts.reduce((sum, part) => sum + part.cpuUs, 0) / parts.length };
}

function toolCall(session: Session): () => Promise<void> {
  return async () => {
    const result = await session.callTool('bash', { command: 'true', description: 'noop' });
    const text = result.content[0]?.text;
    if (result.isError || text !== '(no output)') throw new Error(`bash tool: ${JSON.stringify(text)}`);
  };
}

export async function run(): Promise<SuiteResult> {
  const rules = hundredRules();
  const policy = loadPolicy({ rules }, 'runtime', 'runtime options', 'policy.');
  const context = { policies: [policy] };
  const script = tenKilobyteScript();
  for (let i = 0; i < 200; i++) for (const command of TYPICAL) check(command, context);
  const typicalParse = timeAll(TYPICAL, (command) => parseScript(command), CHECKS / TYPICAL.length);
  const typicalCheck = timeAll(TYPICAL, (command) => check(command, context), CHECKS / TYPICAL.length);
  const scriptParse = timeEach(() => parseScript(script), SCRIPT_CHECKS);
  const scriptCheck = timeEach(() => check(script, context), SCRIPT_CHECKS);
  const us = (name: string, samples: { us: number[]; cpuUs: number }, baseline?: string): Figure => {
    const s = spread(samples.us);
    return {
      name,
      value: s.p50,
      unit: 'p50 µs',
      ...(baseline ? { baseline } : {}),
      extra: { 'p99 µs': s.p99, 'CPU µs/check': samples.cpuUs, checks: samples.us.length },
    };
  };
  const checkRows = withRatios([
    us('parse, typical command', typicalParse),
    us('check, typical command', typicalCheck, 'parse, typical command'),
    us(`parse, ${script.length}-byte script`, scriptParse),
    us(`check, ${script.length}-byte script`, scriptCheck, `parse, ${script.length}-byte script`),
  ]);

  const plain = await createRuntime({});
  const guarded = await createRuntime({ policy: { rules } });
  const NONE = "session.callTool('bash', true), no policy";
  const HUNDRED = "session.callTool('bash', true), 100-rule policy";
  let callRows;
  let added = Number.NaN;
  try {
    const cases: [string, () => Promise<void>][] = [
      [NONE, toolCall(plain.session({ id: 'bench-policy' }))],
      [HUNDRED, toolCall(guarded.session({ id: 'bench-policy' }))],
    ];
    for (let i = 0; i < WARMUP; i++) for (const [, once] of cases) await once();
    const rounds = await asyncRounds(cases.map(([name, once]) => ({ name, once: () => sequentialMs(once, PER_ROUND) })), ROUNDS);
    const p50s = (name: string) => rounds.get(name)!.map((ms) => spread(ms).p50);
    callRows = withRatios(
      cases.map(([name]): Figure => {
        const all = spread(rounds.get(name)!.flat());
        const figure: Figure = { name, value: all.p50, unit: 'p50 ms', extra: { 'p99 ms': all.p99, calls: rounds.get(name)!.flat().length } };
        if (name !== NONE) {
          figure.baseline = NONE;
          figure.ratio = median(roundRatios(p50s(name), p50s(NONE)));
        }
        return figure;
      }),
    );
    // Per round, so that a drift of the machine between rounds (both runtimes see it) cancels out.
    const hundred = p50s(HUNDRED);
    added = median(p50s(NONE).map((none, round) => hundred[round]! - none));
  } finally {
    await Promise.all([plain.close(), guarded.close()]);
  }
  const typical = find(checkRows, 'check, typical command');
  const big = find(checkRows, `check, ${script.length}-byte script`);
  return {
    name: 'policy',
    description: 'command policy: check() latency (100 rules) and what a 100-rule policy adds to the bash tool',
    tables: [
      { title: `check() under a 100-rule policy (${CHECKS} typical checks over ${TYPICAL.length} commands; ${SCRIPT_CHECKS} script checks)`, rows: checkRows },
      { title: `latency of \`true\` through the bash tool (${ROUNDS} x ${PER_ROUND} calls each, interleaved)`, rows: callRows },
    ],
    targets: [
      atMost(`check p50 <= ${TARGET_TYPICAL_US} µs, typical command`, typical.value, TARGET_TYPICAL_US, `${fmt(typical.value)} µs (p99 ${fmt(typical.extra!['p99 µs'] as number)} µs)`),
      atMost(
        `check p50 <= ${TARGET_SCRIPT_US} µs, 10 KB script`,
        big.value,
        TARGET_SCRIPT_US,
        `${fmt(big.value)} µs (p99 ${fmt(big.extra!['p99 µs'] as number)} µs; ${fmt(big.extra!['CPU µs/check'] as number)} µs of CPU per check)`,
      ),
      atMost(`100-rule policy adds <= ${TARGET_ADDED_MS} ms to bash \`true\` (p50)`, added, TARGET_ADDED_MS, `${added < 0 ? '' : '+'}${fmt(added)} ms`),
    ],
    notes: [
      'parse = the native parse (the fast path where it understands the whole script, else tree-sitter-bash) and JSON.parse of its result; ' +
        'check() = that parse, wrappers and tools resolved and nested scripts parsed in JS, rule matching over a name index; ' +
        'timed one call at a time with performance.now() after 2000 warm-up checks; CPU µs/check = process.cpuUsage() over the batch / checks.',
      'tree-sitter-bash takes about 2-4 µs of CPU per statement, so a script it parses costs milliseconds per 10 KB; the fast path parses the shapes it fully understands (the 10 KB script here) and hands anything else to it.',
      `Tool latency: ${ROUNDS} rounds of ${PER_ROUND} sequential calls per runtime, order rotated per round, after ${WARMUP} warm-up calls each; ratio = median of per-round p50 ratios; added = median of per-round p50 differences.`,
    ],
  };
}
