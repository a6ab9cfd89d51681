// No test rests on a wall-clock window under 2 s (a loaded machine misses them): the shapes test/helpers/windows.ts
// finds are absent from every test file, and each shape is shown found in a planted snippet, polls and waits on events
// let be.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shortWindows } from './helpers/windows.js';

const repo = join(import.meta.dirname, '..');

/** The TypeScript and JavaScript module files under `dir` (relative to the repository), leaving out installed
 * packages and environments (test/interop installs clients beside their tests). */
function testFiles(dir: string): string[] {
  return readdirSync(join(repo, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name.startsWith('.') || entry.name === 'venv' ? [] : testFiles(path);
    return /\.(ts|mjs)$/.test(entry.name) ? [path] : [];
  });
}

describe('the tests', () => {
  it('rest on no window under 2 s', () => {
    const files = testFiles('test');
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) =>
      shortWindows(file, readFileSync(join(repo, file), 'utf8')).map((w) => `${file}:${w.line} (${w.rule}): ${w.text}`),
    );
    expect(found).toEqual([]);
  }, 120_000);
});

describe('the window finder', () => {
  const rules = (code: string) => shortWindows('planted.ts', code).map((w) => `${w.line} ${w.rule}`);

  it('finds a fixed wait under 2 s, through a constant or arithmetic, and lets a poll, a longer wait and a reason be', () => {
    const code = [
      'const SHORT = 300;',
      'await new Promise((resolve) => setTimeout(resolve, SHORT));',
      'await sleep(2 * 100);',
      "setTimeout(() => controller.abort(), 200);",
      'await new Promise((resolve) => setTimeout(resolve, 2_000));',
      'for (;;) await new Promise((resolve) => setTimeout(resolve, 10));',
      'const check = () => (done() ? resolve() : setTimeout(check, 20));',
      '// window-ok: nothing depends on it here',
      'await sleep(50);',
    ].join('\n');
    expect(rules(code)).toEqual(['2 fixed wait', '3 fixed wait', '4 fixed wait']);
  });

  it('finds output or a trap that must come before a deadline under 2 s, and lets a command that waits first be', () => {
    const code = [
      "await bash(s, 'echo hi; sleep 30', { timeoutMs: 300 });",
      "await call(client, 'bash', { command: \"trap '' TERM; sleep 30\", timeoutMs: 1_000 });",
      'const timeoutMs = 1_500;',
      "executor.resolve({ command: 'printf x; sleep 9', timeoutMs });",
      "await bash(s, 'sleep 30', { timeoutMs: 100 });",
      "await bash(s, 'until [ -e go ]; do sleep 0.05; done; echo late', { timeoutMs: 100 });",
      "await bash(s, 'echo hi; sleep 30', { timeoutMs: 2_000 });",
      "await s.callTool('job_output', { job_id: id, wait: true, timeout_ms: 50 });",
    ].join('\n');
    expect(rules(code)).toEqual(['1 output before a deadline', '2 output before a deadline', '4 output before a deadline']);
  });

  it('finds a grace under 2 s in a file whose commands handle TERM, and no grace where they only ignore it', () => {
    const handled = ["createRuntime({ executor: { graceMs: 500 } });", "bash(s, `trap 'exit 0' TERM; sleep 30 & wait`);"].join('\n');
    expect(rules(handled)).toEqual(['1 handler within a grace']);
    const ignored = ["createRuntime({ executor: { graceMs: 500 } });", "bash(s, `trap '' TERM; sleep 30`);"].join('\n');
    expect(rules(ignored)).toEqual([]);
  });
});
