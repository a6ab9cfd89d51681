// The checker against the kernel. Under the allow-list table policy, every allowed case runs under strace and every
// program it executed must be one an allow rule names. Under the deny-list policy, the attack families and shapes
// generated from them (wrappers × options, git's global options × sub-commands, shells reading stdin, xargs,
// aliases) run whenever the checker allows them, as root and as nobody: no exec may be `rm`, and no push may reach
// the remote (git runs receive-pack for it, whatever spelling started it).
import { rmSync } from 'node:fs';
import { basename } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check, loadPolicy } from '../../src/index.js';
import { ATTACKS, DENY_POLICY } from './attacks.js';
import { CASES, TABLE_POLICY } from './cases.js';
import { makeTemplate, NOBODY, traced, type Exec, type Traced } from './strace.js';

const allowList = loadPolicy(TABLE_POLICY, 'runtime', 'runtime options', 'policy.');
const denyList = loadPolicy(DENY_POLICY, 'runtime', 'runtime options', 'policy.');
const allowedCases = CASES.filter((entry) => !entry.task && check(entry.command, { policies: [allowList] }).decision === 'allow');
/** The first word of every allow rule: what an allowed case may execute. */
const covered = new Set(allowList.rules.filter((rule) => rule.decision === 'allow').flatMap((rule) => rule.command[0]!));
const asRoot = process.getuid?.() === 0;

let template = '';
beforeAll(() => {
  template = makeTemplate();
});
afterAll(() => rmSync(template, { recursive: true, force: true }));

/** The programs one command executed, by name, after the tracing shell itself. */
function programs(command: string): string[] {
  return traced(template, command).execs.slice(1).map((exec) => basename(exec.path));
}

describe('allowed cases of the table under strace', () => {
  it('covers a meaningful share of the table', () => {
    expect(allowedCases.length).toBeGreaterThanOrEqual(60);
  });

  it.each(allowedCases.map((entry) => [JSON.stringify(entry.command), entry.command] as const))('%s executes only allowed programs', (_shown, command) => {
    for (const program of programs(command)) expect(covered, `${command} executed ${program}`).toContain(program);
  });

  it('sees an execution the policy would refuse (the trace is not empty by construction)', () => {
    expect(programs('ls >/dev/null; /bin/echo x >/dev/null')).toEqual(['ls', 'echo']);
  });
});

/** What a deny rule of the deny-list policy names, as the kernel saw it run. */
function denied(run: Traced): string | undefined {
  const removal = run.execs.find((exec: Exec) => {
    const program = basename(exec.path);
    return program === 'rm' || basename(exec.argv[0] ?? '') === 'rm' || (program === 'busybox' && exec.argv[1] === 'rm');
  });
  if (removal) return `exec ${JSON.stringify(removal.argv)}`;
  const receive = run.execs.find((exec) => basename(exec.path) === 'git-receive-pack' || exec.argv.includes('receive-pack') || basename(exec.path) === 'git-push');
  if (receive) return `push: exec ${JSON.stringify(receive.argv)}`;
  return run.pushed ? 'push: the remote received a ref' : undefined;
}

/** A seeded generator, so a failing shape is named by its seed. */
function generated(count: number): string[] {
  let state = 0x2545f491;
  const pick = <T>(items: readonly T[]): T => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return items[state % items.length]!;
  };
  const wrappers = ['', 'timeout 5 ', 'setsid -w ', 'nice -n 1 ', 'env -u X ', 'taskset 1 ', 'chrt -o 0 ', 'flock f ', 'prlimit --nofile=512 ', 'nohup ', 'stdbuf -oL ', 'unshare -r ', 'strace -qq -o /dev/null ', 'ionice -c3 ', 'time -p ', 'command ', 'watch -x -g ', 'xargs -a /dev/null '];
  const globals = ['', '-C . ', '--no-pager ', '-c user.name=x ', '-P ', '--git-dir=.git ', '--work-tree=. ', '-c alias.p=push ', '--namespace=x ', '-c alias.s=status '];
  const targets = ['git GLOBALpush', 'git GLOBALstatus', 'git GLOBALp', 'git GLOBALs', 'rm victim', 'true', 'ls', 'echo push | xargs git', 'echo victim | xargs rm'];
  const shells = ['X', "bash -c 'X'", "sh <<'E'\nX\nE", 'bash <<< "X"', "echo 'X' | sh", 'X 2>/dev/null', 'true && X', '(X)'];
  const out = new Set<string>();
  while (out.size < count) {
    const target = pick(targets).replace('GLOBAL', pick(globals));
    out.add(pick(shells).replace('X', `${pick(wrappers)}${pick(wrappers)}${target}`.replace(/ +/g, ' ').trim()));
  }
  return [...out];
}

const shapes = [...new Set([...ATTACKS.map((entry) => entry.command), ...generated(200)])];
const allowedShapes = shapes.filter((command) => check(command, { policies: [denyList] }).decision === 'allow');
const owners = asRoot ? [['root', undefined], ['nobody', NOBODY]] as const : [['self', undefined]] as const;

describe('attack families under a deny-list policy, run for real', () => {
  it('runs a meaningful share of allowed shapes, and refuses the rest', () => {
    expect(allowedShapes.length).toBeGreaterThanOrEqual(120);
    expect(shapes.length - allowedShapes.length).toBeGreaterThanOrEqual(150);
  });

  it('sees a denied command when one runs (the oracle is not blind)', () => {
    expect(denied(traced(template, 'timeout 5 rm victim'))).toMatch(/^exec /);
    expect(denied(traced(template, 'git -C . push'))).toMatch(/^push/);
    expect(denied(traced(template, 'git -c alias.p=push p'))).toMatch(/^push/);
  });

  for (const [who, owner] of owners) {
    it.each(allowedShapes.map((command) => [JSON.stringify(command), command] as const))(`as ${who}: %s runs nothing a deny rule names`, (_shown, command) => {
      expect(denied(traced(template, command, owner)), command).toBeUndefined();
    });
  }
});
