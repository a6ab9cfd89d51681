// A runner's own failure is told from its code: the codes are the runner's (crates/wire/src/stage.rs), and each
// code's words are the contract's, whatever the runner's message says beside it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUNNER_ERROR_CODES, runnerFailure } from '../../src/contract/index.js';
import { RUNNER_STAGE_TOKENS } from '../../src/contract/runner-failures.js';
import { parse } from '../../src/executor/wire/status.js';

const crate = (file: string) => readFileSync(join(import.meta.dirname, '../../crates', file), 'utf8');
const rust = crate('wire/src/stage.rs');

/** A status line as the call tells it. */
function told(line: string): string {
  const event = parse(line);
  if (event.type !== 'error') throw new Error(`not an error line: ${line}`);
  return runnerFailure(event.code, event.message);
}

describe('runner failures', () => {
  it('know exactly the codes the runner writes', () => {
    const codes = new Set(rust.match(/"RUNNER_[A-Z_]+"/g)!.map((quoted) => quoted.slice(1, -1)));
    expect([...RUNNER_ERROR_CODES].sort()).toEqual([...codes].sort());
  });

  it('are worded by code from a status line, the runner message only as the detail', () => {
    expect(told('error RUNNER_SPAWN spawn bwrap: No such file or directory (os error 2)')).toBe('spawn bwrap: No such file or directory (os error 2)');
    expect(told('error RUNNER_SETUP signalfd: Too many open files (os error 24)')).toBe('signalfd: Too many open files (os error 24)');
    expect(told('error RUNNER_REQUEST request: not a count: "x"')).toBe('shellring-runner refused its request (request: not a count: "x")');
    expect(told('error RUNNER_SANDBOX_UNAVAILABLE sandbox unavailable: the session view needs a mount namespace: Operation not permitted (os error 1)')).toBe(
      'sandbox unavailable: the session view needs a mount namespace',
    );
    expect(told('error something no runner writes')).toBe('shellring-runner could not be started: something no runner writes');
  });

  it('word exactly the steps the runner reports, and every namespace step it names', () => {
    const tokens = [...crate('wire/src/stage.rs').matchAll(/^pub const [A-Z_]+: &str = "([a-z_-]+)";$/gm)].map((m) => m[1]);
    expect([...RUNNER_STAGE_TOKENS.stages].sort()).toEqual([...tokens].sort());
    const steps = crate('runner/src/confine/mount_ns.rs').match(/pub const STEPS: &\[&str\] = &\[([^\]]*)\]/)![1]!;
    expect([...steps.matchAll(/"([^"]+)"/g)].map((m) => m[1])).toEqual(RUNNER_STAGE_TOKENS.namespaceSteps);
  });

  it('word a failed step from its token, the OS text beside its errno and what it named, as before they were codes', () => {
    expect(told('error RUNNER_SPAWN exec 2 No such file or directory\t/opt/my tools/bwrap')).toBe('spawn /opt/my tools/bwrap: No such file or directory (os error 2)');
    expect(told('error RUNNER_SPAWN cgroup 22 Invalid argument')).toBe('sandbox join cgroup: Invalid argument (os error 22)');
    expect(told('error RUNNER_SPAWN cgroup-mkdir 13 Permission denied\t/sys/fs/cgroup/shellring/session-1')).toBe(
      'sandbox cgroup /sys/fs/cgroup/shellring/session-1: mkdir: Permission denied (os error 13)',
    );
    expect(told('error RUNNER_SETUP cgroup-file 22 Invalid argument\t/sys/fs/cgroup/shellring/session-1/pids.max')).toBe(
      'sandbox cgroup /sys/fs/cgroup/shellring/session-1: pids.max: Invalid argument (os error 22)',
    );
    expect(told('error RUNNER_SPAWN caps 1 Operation not permitted')).toBe('sandbox drop capabilities: Operation not permitted (os error 1)');
    expect(told('error RUNNER_SPAWN landlock 1 Operation not permitted')).toBe('sandbox landlock_restrict_self: Operation not permitted (os error 1)');
    expect(told('error RUNNER_SPAWN parent-gone 3 No such process')).toBe('spawn: the runner ended before the command started: No such process (os error 3)');
    expect(told('error RUNNER_SPAWN fds 24 Too many open files')).toBe('sandbox close descriptors: Too many open files (os error 24)');
    expect(told('error RUNNER_SPAWN nproc 1 Operation not permitted')).toBe('sandbox process limit: Operation not permitted (os error 1)');
    expect(told('error RUNNER_SPAWN seccomp 22 Invalid argument')).toBe('sandbox seccomp: Invalid argument (os error 22)');
    expect(told('error RUNNER_SPAWN pid-ns 11 Resource temporarily unavailable')).toBe('sandbox pid namespace: Resource temporarily unavailable (os error 11)');
    expect(told('error RUNNER_SPAWN namespace 1 Operation not permitted\tmake-private')).toBe('sandbox namespace make / private: Operation not permitted (os error 1)');
    expect(told('error RUNNER_SPAWN namespace 13 Permission denied\tuid_map')).toBe('sandbox namespace uid_map: Permission denied (os error 13)');
    expect(told('error RUNNER_SETUP signalfd 24 Too many open files')).toBe('signalfd: Too many open files (os error 24)');
    expect(told('error RUNNER_SETUP fork 11 Resource temporarily unavailable')).toBe('spawn: fork: Resource temporarily unavailable (os error 11)');
    expect(told('error RUNNER_SETUP pipe 24 Too many open files')).toBe('spawn: pipe: Too many open files (os error 24)');
    expect(told('error RUNNER_SETUP stdio 9 Bad file descriptor')).toBe('spawn: stdio: Bad file descriptor (os error 9)');
    expect(told('error RUNNER_SANDBOX_UNAVAILABLE view')).toBe('sandbox unavailable: the session view needs a mount namespace');
    expect(told('error RUNNER_SANDBOX_UNAVAILABLE view 1 Operation not permitted')).toBe('sandbox unavailable: the session view needs a mount namespace');
    // No step's token: the detail as it came.
    expect(told('error RUNNER_SPAWN seccomp: a filter the kernel refused')).toBe('seccomp: a filter the kernel refused');
  });
});

describe("the runner's end lines", () => {
  it('carry how many processes bash left that ended with it, when any did', () => {
    expect(parse('exit 0')).toEqual({ type: 'exit', code: 0 });
    expect(parse('exit 3 2')).toEqual({ type: 'exit', code: 3, ended: 2 });
    expect(parse('signal 15 1')).toEqual({ type: 'signal', signal: 'SIGTERM', ended: 1 });
    expect(parse('signal 9')).toEqual({ type: 'signal', signal: 'SIGKILL' });
  });
});
