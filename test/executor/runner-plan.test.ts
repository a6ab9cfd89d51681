// The one confinement encoding across the language line: every field the TypeScript encoder writes comes back, as
// the real shellring-runner decoded it (`--check-request`), with the value it was given; refusals come as codes.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { encode, encodeSessionPlan, type RunnerRequest } from '../../src/executor/wire/request.js';
import { parse } from '../../src/executor/wire/status.js';
import { UNCONFINED, type ConfinementPlan } from '../../src/executor/wire/plan.js';
import { runnerPath } from '../../src/native/assets.js';

/** The request as the runner decoded it (its JSON, in the host's names). */
function decoded(frame: Buffer): { status: number | null; out: string; err: string } {
  const result = spawnSync(runnerPath(), ['--check-request'], { input: frame, encoding: 'utf8' });
  return { status: result.status, out: result.stdout, err: result.stderr };
}

/** Every field set, each to a value no other field has. */
const full: ConfinementPlan = {
  backend: 'bubblewrap',
  bwrapPath: '/usr/bin/bwrap',
  network: 'deny-except-unix',
  isolation: 'seccomp',
  view: 'session',
  nproc: 77,
  writable: ['/w/one', '/w/two'],
  hidden: ['/state'],
  readable: ['/ro/a', '/ro b', '/ro/ü'],
  denied: ['/etc/shadow'],
  cgroups: ['/sys/fs/cgroup/s1'],
  cgroupLimits: ['pids.max=9', '?memory.high=1'],
};

describe('the runner decodes what the host encodes', () => {
  it('every field of a full plan, its command, environment and stdin', () => {
    const request: RunnerRequest = { cwd: '/work dir', plan: full, command: 'echo "a=b"\n\tdone', env: { PATH: '/bin', EQ: 'x=y', EMPTY: '' }, stdin: 'line\n' };
    const { status, out } = decoded(encode(request));
    expect(status).toBe(0);
    expect(JSON.parse(out)).toEqual({ ...request, stdin: 'line\n' });
  });

  it('each backend, network and the defaults', () => {
    for (const plan of [
      UNCONFINED,
      { ...UNCONFINED, backend: 'landlock', network: 'deny' },
      { ...UNCONFINED, backend: 'landlock', network: 'allow', isolation: 'auto', view: 'host', nproc: 1 },
    ] satisfies ConfinementPlan[]) {
      const { status, out } = decoded(encode({ cwd: '/', plan, command: 'true', env: {} }));
      expect(status).toBe(0);
      expect(JSON.parse(out)).toEqual({ cwd: '/', plan: { bwrapPath: '', ...plan }, command: 'true', env: {}, stdin: null });
    }
  });

  it('a plan the runner cannot take is refused with its reason', () => {
    const { status, err } = decoded(encode({ cwd: '/', plan: { ...UNCONFINED, view: 'session' }, command: 'true', env: {} }));
    expect(status).toBe(1);
    expect(err).toBe('shellring-runner: plan: the session view needs a sandbox backend\n');
  });

  it('a session sandbox reads the same plan fields, with no command', () => {
    // A request's body is its cwd, the plan's fields, the environment's count, the terminal's sides (empty: on pipes)
    // and the stdin marker.
    const body = encode({ cwd: 'c', plan: full, command: '', env: {} }).subarray(4);
    expect(Buffer.concat([Buffer.from('c\0'), encodeSessionPlan(full).subarray(4), Buffer.from('0\0\0\0-')])).toEqual(body);
  });
});

describe('the runner reports its failures by code', () => {
  it('a coded error line keeps its message whole', () => {
    expect(parse('error RUNNER_SANDBOX_UNAVAILABLE sandbox unavailable: the session view needs a mount namespace')).toEqual({
      type: 'error',
      code: 'RUNNER_SANDBOX_UNAVAILABLE',
      message: 'sandbox unavailable: the session view needs a mount namespace',
    });
    expect(parse('error RUNNER_SPAWN spawn /x: No such file or directory')).toEqual({ type: 'error', code: 'RUNNER_SPAWN', message: 'spawn /x: No such file or directory' });
  });

  it('a line without a known code carries no code', () => {
    expect(parse('error sandbox unavailable: something')).toEqual({ type: 'error', message: 'sandbox unavailable: something' });
    expect(parse('garbled')).toEqual({ type: 'error', message: 'garbled' });
  });
});
