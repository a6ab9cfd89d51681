// Draws the benchmark figures of bench/results/latest.json as SVG charts (docs/bench/*.svg), each row beside its
// baseline from the same run, and the targets against their thresholds; `npm run bench:charts` writes them and the
// list of pictures in docs/benchmarks.md. Only suites the table shows are drawn (same provenance rule).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unshowable, type Provenance } from './lib/provenance.js';

interface Row {
  name: string;
  baseline: string;
  value: number;
  unit: string;
  ratio: number;
}

interface Target {
  claim: string;
  figure: string;
  met: boolean;
  threshold: number;
  value: number;
}

type Suite = Partial<Provenance> & { tables?: { title: string; rows: Row[] }[]; targets?: Target[] };

const WIDTH = 860;
const LABEL = 330;
const BAR = 300;
const LINE = 22;
const FONT = 'font-family="system-ui, sans-serif"';

function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function number(value: number): string {
  return Math.abs(value) >= 100 ? Math.round(value).toLocaleString('en-US') : String(Number(value.toPrecision(3)));
}

function svg(height: number, body: string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}">`,
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}

/** One suite: each table's rows as bars on the table's own scale, the baseline grey, its ratio beside each row. */
export function suiteChart(name: string, suite: Suite): string {
  const body: string[] = [`<text x="8" y="20" ${FONT} font-size="14" font-weight="bold">${xmlEscape(name)}</text>`];
  let y = 30;
  for (const table of suite.tables ?? []) {
    y += LINE;
    body.push(`<text x="8" y="${y - 6}" ${FONT} font-size="12" font-weight="bold">${xmlEscape(cut(table.title, 130))}</text>`);
    const max = Math.max(...table.rows.map((row) => Math.abs(row.value)), Number.MIN_VALUE);
    for (const row of table.rows) {
      const width = Math.max(1, (Math.abs(row.value) / max) * BAR);
      const isBaseline = row.name === row.baseline;
      body.push(
        `<text x="8" y="${y + 14}" ${FONT} font-size="12">${xmlEscape(cut(row.name, 52))}</text>`,
        `<rect x="${LABEL}" y="${y + 3}" width="${width.toFixed(1)}" height="${LINE - 8}" fill="${isBaseline ? '#9aa0a6' : '#1f5fbf'}"/>`,
        `<text x="${LABEL + width + 6}" y="${y + 14}" ${FONT} font-size="12">${xmlEscape(`${number(row.value)} ${row.unit}${isBaseline ? ' (baseline)' : ` (${number(row.ratio)}x)`}`)}</text>`,
      );
      y += LINE;
    }
  }
  return svg(y + 10, body);
}

/** Every target as its measured value over its threshold (1 = the threshold), green where met. */
export function targetsChart(suites: [string, Suite][]): string {
  const targets = suites.flatMap(([name, suite]) => (suite.targets ?? []).map((target) => ({ name, ...target })));
  const scale = BAR / 2;
  const body: string[] = [`<text x="8" y="20" ${FONT} font-size="14" font-weight="bold">targets: measured / threshold (the line is the threshold)</text>`];
  let y = 32;
  for (const target of targets) {
    const share = target.threshold === 0 ? 0 : Math.min(2, Math.max(0, target.value / target.threshold));
    const width = Math.max(1, share * scale);
    body.push(
      `<text x="8" y="${y + 14}" ${FONT} font-size="12">${xmlEscape(cut(`${target.name}: ${target.claim}`, 52))}</text>`,
      `<rect x="${LABEL + 40}" y="${y + 3}" width="${width.toFixed(1)}" height="${LINE - 8}" fill="${target.met ? '#1a7f37' : '#c62828'}"/>`,
      `<text x="${LABEL + 40 + BAR + 8}" y="${y + 14}" ${FONT} font-size="12">${xmlEscape(cut(target.figure, 26))}</text>`,
    );
    y += LINE;
  }
  body.push(`<line x1="${LABEL + 40 + scale}" y1="28" x2="${LABEL + 40 + scale}" y2="${y}" stroke="#1d1f23" stroke-dasharray="4 3"/>`);
  return svg(y + 10, body);
}

/** The charts of a results file, by file name, and the Markdown that shows them. */
export function benchCharts(path = 'bench/results/latest.json', repo = resolve(dirname(path), '../..')): { files: Map<string, string>; markdown: string } {
  const suites = Object.entries((JSON.parse(readFileSync(path, 'utf8')) as { suites?: Record<string, Suite> }).suites ?? {}).filter(
    ([, suite]) => unshowable(repo, suite) === undefined,
  );
  const files = new Map<string, string>([['targets.svg', targetsChart(suites)]]);
  const lines = ['![Every target: the measured value over its threshold](bench/targets.svg)', ''];
  for (const [name, suite] of suites) {
    if (!suite.tables?.length) continue;
    files.set(`${name}.svg`, suiteChart(name, suite));
    lines.push(`![${name}: each figure beside its baseline](bench/${name}.svg)`, '');
  }
  return { files, markdown: lines.join('\n').trimEnd() };
}

const START = '<!-- charts:start -->\n';
const END = '<!-- charts:end -->';

/** Writes docs/bench/ afresh and the pictures' list in docs/benchmarks.md. */
export function writeCharts(root: string): void {
  const { files, markdown } = benchCharts(join(root, 'bench/results/latest.json'), root);
  const dir = join(root, 'docs/bench');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of files) writeFileSync(join(dir, name), text);
  const page = join(root, 'docs/benchmarks.md');
  const text = readFileSync(page, 'utf8');
  const [before, rest] = text.split(START);
  writeFileSync(page, `${before}${START}${markdown}\n${rest!.slice(rest!.indexOf(END))}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) writeCharts(process.cwd());
