// Renders a suite's tables and verdicts as plain-text tables for the terminal.
import type { Extra, Row, SuiteResult, Table } from './types.js';
import { fmt } from './units.js';

function cell(value: Extra | undefined): string {
  if (value === undefined) return '';
  if (Array.isArray(value)) return value.map(fmt).join(' ');
  return typeof value === 'number' ? fmt(value) : value;
}

function ratio(row: Row): string {
  if (row.baseline === row.name) return 'baseline';
  return Number.isFinite(row.ratio) ? `${row.ratio.toFixed(2)}x` : '-';
}

function renderTable(table: Table): string {
  const extras: string[] = [];
  for (const row of table.rows) for (const key of Object.keys(row.extra ?? {})) if (!extras.includes(key)) extras.push(key);
  const unit = table.rows[0]?.unit ?? '';
  const header = ['case', unit, 'vs baseline', ...extras];
  const body = table.rows.map((row) => [row.name, fmt(row.value), ratio(row), ...extras.map((k) => cell(row.extra?.[k]))]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  // The name column reads best left-aligned, the figures right-aligned.
  const line = (cells: string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const baselines = [...new Set(table.rows.filter((r) => r.baseline !== r.name).map((r) => r.baseline))];
  return [
    `  ${table.title} (baseline: ${baselines.join(', ') || 'none'})`,
    `  ${line(header)}`,
    `  ${rule}`,
    ...body.map((r) => `  ${line(r)}`),
  ].join('\n');
}

export function renderSuite(result: SuiteResult, seconds: number): string {
  const parts = [`== ${result.name}: ${result.description} (${seconds.toFixed(1)} s)`];
  for (const table of result.tables) parts.push(renderTable(table), '');
  for (const note of result.notes) parts.push(`  note: ${note}`);
  if (result.targets.length > 0) parts.push('');
  for (const t of result.targets) parts.push(`  ${t.met ? 'met    ' : 'NOT MET'}  ${t.claim}: ${t.figure}`);
  return `${parts.join('\n')}\n`;
}
