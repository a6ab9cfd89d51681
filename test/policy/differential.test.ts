// The checker against the kernel: every case the table's allow-list policy allows runs for real under
// `strace -f -e trace=execve`, and every program that was executed must be one an allow rule names.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { check, loadPolicy } from '../../src/index.js';
import { CASES, TABLE_POLICY } from './cases.js';

const policy = loadPolicy(TABLE_POLICY, 'runtime', 'runtime options', 'policy.');
const allowed = CASES.filter((entry) => !entry.task && check(entry.command, { policies: [policy] }).decision === 'allow');
/** The first word of every allow rule: what an allowed case may execute. */
const covered = new Set(policy.rules.filter((rule) => rule.decision === 'allow').flatMap((rule) => rule.command[0]!));

/** The programs one command executed, by name, after the tracing shell itself. */
function executed(command: string): string[] {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-strace-')));
  const log = join(dir, 'trace.log');
  try {
    execFileSync('strace', ['-f', '-qq', '-z', '-e', 'trace=execve', '-o', log, 'bash', '-c', command], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'ignore'],
      timeout: 20_000,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, LC_ALL: 'C' },
    });
  } catch {
    // A non-zero exit is an outcome like any other here: only what was executed counts.
  }
  const paths = [...readFileSync(log, 'utf8').matchAll(/execve\("([^"]+)"/g)].map((match) => match[1]!);
  rmSync(dir, { recursive: true, force: true });
  // The first exec is the tracing harness's own `bash -c`.
  return paths.slice(1).map((path) => basename(path));
}

describe('allowed cases under strace', () => {
  it('covers a meaningful share of the table', () => {
    expect(allowed.length).toBeGreaterThanOrEqual(50);
  });

  it.each(allowed.map((entry) => [JSON.stringify(entry.command), entry.command] as const))('%s executes only allowed programs', (_shown, command) => {
    for (const program of executed(command)) expect(covered, `${command} executed ${program}`).toContain(program);
  });

  it('sees an execution the policy would refuse (the trace is not empty by construction)', () => {
    expect(executed('ls >/dev/null; /bin/echo x >/dev/null')).toEqual(['ls', 'echo']);
  });
});
