// Prints the benchmark targets of bench/results/latest.json as the Markdown table the README carries: each suite
// with the date and commit it was measured on, the machine (by fingerprint, named below the table) and the load it
// started under, marked when above the limit a run starts suites at; a suite without provenance, or measured on
// code that is not in this checkout's history, cannot be shown.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadLimit } from './lib/load-gate.js';
import { fingerprint, type Machine } from './lib/machine.js';
import { unshowable, type Provenance } from './lib/provenance.js';

interface Target {
  claim: string;
  figure: string;
  met: boolean;
}

type Stored = Partial<Provenance> & { targets?: Target[] };

/** `path` defaults to the results file of the repository it runs in (npm scripts run from its root); its commits
 * are looked up in `repo`, by default the repository that holds it. */
export function benchTable(path = 'bench/results/latest.json', repo = resolve(dirname(path), '../..')): string {
  const suites = (JSON.parse(readFileSync(path, 'utf8')) as { suites?: Record<string, Stored> }).suites ?? {};
  const lines = ['| suite | target | measured | met | date | commit | machine | load |', '| --- | --- | --- | --- | --- | --- | --- | --- |'];
  const hidden: string[] = [];
  const machines = new Map<string, string>();
  let rows = 0;
  let busy = 0;
  let atEnd = false;
  for (const [name, suite] of Object.entries(suites)) {
    const why = unshowable(repo, suite);
    if (why) {
      hidden.push(`${name} (${why})`);
      continue;
    }
    const machine = suite.machine!;
    const id = fingerprint(machine);
    machines.set(id, describe(machine));
    const load = loadCell(suite);
    const targets = suite.targets ?? [];
    if (targets.length) rows += 1;
    if (targets.length && load.over) busy += 1;
    atEnd ||= suite.startLoad === undefined;
    for (const target of targets) {
      const cells = [name, escapeCell(target.claim), escapeCell(target.figure), target.met ? 'yes' : '**no**', suite.date!.slice(0, 10), suite.commit!.slice(0, 10), id, load.text];
      lines.push(`| ${cells.join(' | ')} |`);
    }
  }
  const named = [...machines].map(([id, text]) => `${id}: ${text}`);
  lines.push('', `Machines: ${named.join('; ') || 'none'}.`);
  const ended = atEnd ? ' (`at end`: when it ended, in records kept before the start was)' : '';
  const marked = busy ? `; **bold**, in ${busy} of ${rows} suites: above 1.5 x the machine's cores, the most a run starts a suite at` : '';
  lines.push(`Load: the 1-minute load average when the suite started${ended}${marked}.`);
  if (hidden.length) lines.push(`Not shown: ${hidden.join(', ')}.`);
  return lines.join('\n');
}

/** The load a suite ran under, bold when above the limit for its machine. */
function loadCell(suite: Stored): { text: string; over: boolean } {
  const load = suite.startLoad ?? suite.machine?.load?.[0];
  if (load === undefined) return { text: 'not kept', over: false };
  const over = load > loadLimit(suite.machine!.cores);
  const text = `${load}${suite.startLoad === undefined ? ' at end' : ''}`;
  return { text: over ? `**${text}**` : text, over };
}

function describe(machine: Machine): string {
  return `${machine.cores} cores (${machine.cpu}), ${machine.platform} ${machine.kernel}, ${machine.memoryGiB} GiB, Node ${machine.node}`;
}

function escapeCell(text: string): string {
  return text.replaceAll('|', '\\|');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(`${benchTable()}\n`);
}
