// The bash tool over the Executor interface alone: policy and rendering are judged against an executor that runs
// nothing, so what they do cannot depend on a process. Everything that runs a command is tested with real ones.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as setImmediatePromise } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { EnvRegistry } from '../../src/env/registry.js';
import type { ExecRequest, ExecSpec, Executor, ExecutorStats, ProcessHandle, RunResult, SpillRead } from '../../src/executor/types.js';
import { loadPolicy } from '../../src/policy/load.js';
import { BashTool } from '../../src/tools/bash.js';
import { PER_TURN } from '../../src/tools/turns.js';
import { text } from '../helpers/calls.js';

/** Resolves requests as given and answers every run with `result`; records what reached it. */
class ScriptedExecutor implements Executor {
  readonly requests: ExecRequest[] = [];
  readonly runs: ExecSpec[] = [];
  readonly cwd = '/srv/work';
  readonly commandLimits = { timeoutMs: 120_000, maxTimeoutMs: 600_000, maxOutputBytes: 64_000 };

  constructor(readonly result: RunResult) {}

  get capture(): never {
    throw new Error('no capture: this executor never runs anything');
  }

  resolve(request: ExecRequest): ExecSpec {
    this.requests.push(request);
    return {
      command: request.command,
      workdir: request.workdir ?? this.cwd,
      timeoutMs: request.timeoutMs ?? 120_000,
      stdoutMaxBytes: 64_000,
      stderrMaxBytes: 64_000,
      maxSpillBytes: 0,
      graceMs: 100,
      env: { ...request.dshEnv },
      sessionId: request.sessionId,
    };
  }

  async run(spec: ExecSpec): Promise<RunResult> {
    this.runs.push(spec);
    return this.result;
  }

  start(): ProcessHandle {
    throw new Error('not started in these tests');
  }

  startWhenReady(): ProcessHandle {
    throw new Error('not started in these tests');
  }

  async closeSession(): Promise<void> {}
  async close(): Promise<void> {}

  stats(): ExecutorStats {
    return { capturedBytes: 0, spilledBytes: 0, poolUtilization: 0 };
  }

  async readSpill(): Promise<SpillRead> {
    return { ok: false, reason: 'absent' };
  }
}

const TIMED_OUT: RunResult = {
  exitCode: null,
  signal: 'SIGKILL',
  timedOut: true,
  aborted: false,
  timeoutMs: 1500,
  stdout: { text: 'line 1\nline 2', truncated: true, spillPath: '/spill/session-0/stdout-1' },
  stderr: { text: 'warning: slow\n', truncated: false },
};

function tool(executor: Executor, policy?: Parameters<typeof loadPolicy>[0]): BashTool {
  const dshHome = mkdtempSync(join(tmpdir(), 'shellring-seam-'));
  return new BashTool({
    executor,
    env: new EnvRegistry({ dshHome }),
    config: { enableRunInBackground: false, promoteOnTimeout: false },
    policy: policy && loadPolicy(policy, 'runtime', 'runtime options', 'policy.'),
  });
}

describe('the bash tool over the Executor interface', () => {
  it('renders a run result into the exact contract text, from the spec it assembled', async () => {
    const executor = new ScriptedExecutor(TIMED_OUT);
    const result = await tool(executor).call({ command: 'make all', description: 'build', timeoutMs: 1500 }, { sessionId: 's1', callId: 'c1' });
    expect(text(result)).toBe(
      'line 1\nline 2\n[output truncated; full output: /spill/session-0/stdout-1]\n[stderr]\nwarning: slow\n' +
        '[timed out after 1500ms]\n[killed by signal: SIGKILL]',
    );
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ kind: 'foreground', timedOut: true, signal: 'SIGKILL', timeoutMs: 1500 });
    // The executor's configured directory is the base; the managed environment names the session.
    expect(executor.runs).toHaveLength(1);
    expect(executor.runs[0]).toMatchObject({ command: 'make all', workdir: '/srv/work', timeoutMs: 1500, sessionId: 's1' });
    expect(executor.runs[0]!.env).toMatchObject({ DSH_SESSION_ID: 's1' });
  });

  it('begins a burst of calls over several turns of the event loop, in the order they came', async () => {
    const executor = new ScriptedExecutor(TIMED_OUT);
    const bash = tool(executor);
    await setImmediatePromise();
    const calls = Array.from({ length: 40 }, (_, i) => bash.call({ command: `echo ${i}`, description: 'burst' }, { sessionId: `s${i}` }));
    const runsByTurn: number[] = [];
    while (executor.runs.length < 40) {
      await setImmediatePromise();
      runsByTurn.push(executor.runs.length);
    }
    await Promise.all(calls);
    // PER_TURN began in the turn that made the calls, PER_TURN more in each turn after it.
    expect(runsByTurn.length).toBeGreaterThanOrEqual(40 / PER_TURN - 1);
    expect(runsByTurn[0]).toBeLessThanOrEqual(2 * PER_TURN);
    expect(executor.runs.map((run) => run.command)).toEqual(Array.from({ length: 40 }, (_, i) => `echo ${i}`));
  });

  it('never hands a command the policy denies to the executor', async () => {
    const executor = new ScriptedExecutor(TIMED_OUT);
    const policy = { rules: [{ decision: 'deny' as const, command: ['rm'], message: 'nothing is removed here' }] };
    const result = await tool(executor, policy).call({ command: 'echo ok && rm -rf build', description: 'clean' }, { sessionId: 's1' });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('nothing is removed here');
    expect(executor.requests).toEqual([]);
    expect(executor.runs).toEqual([]);
  });
});
