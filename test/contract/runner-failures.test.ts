// A runner's own failure is told from its code: the codes are the runner's (crates/runner/src/error.rs), and each
// code's words are the contract's, whatever the runner's message says beside it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUNNER_ERROR_CODES, runnerFailure } from '../../src/contract/index.js';
import { parse } from '../../src/executor/runner-request.js';

const rust = readFileSync(join(import.meta.dirname, '../../crates/runner/src/error.rs'), 'utf8');

describe('runner failures', () => {
  it('know exactly the codes the runner writes', () => {
    const codes = new Set(rust.match(/"RUNNER_[A-Z_]+"/g)!.map((quoted) => quoted.slice(1, -1)));
    expect([...RUNNER_ERROR_CODES].sort()).toEqual([...codes].sort());
  });

  it('are worded by code from a status line, the runner message only as the detail', () => {
    const told = (line: string) => {
      const event = parse(line);
      if (event.type !== 'error') throw new Error(`not an error line: ${line}`);
      return runnerFailure(event.code, event.message);
    };
    expect(told('error RUNNER_SPAWN spawn bwrap: No such file or directory (os error 2)')).toBe('spawn bwrap: No such file or directory (os error 2)');
    expect(told('error RUNNER_SETUP signalfd: Too many open files (os error 24)')).toBe('signalfd: Too many open files (os error 24)');
    expect(told('error RUNNER_REQUEST request: not a count: "x"')).toBe('shellring-runner refused its request (request: not a count: "x")');
    expect(told('error RUNNER_SANDBOX_UNAVAILABLE sandbox unavailable: the session view needs a mount namespace: Operation not permitted (os error 1)')).toBe(
      'sandbox unavailable: the session view needs a mount namespace',
    );
    expect(told('error something no runner writes')).toBe('shellring-runner could not be started: something no runner writes');
  });
});
