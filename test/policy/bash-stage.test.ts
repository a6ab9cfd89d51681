// The bash tool's policy stage for real: a refused call runs nothing (its side effect never happens, foreground or
// background), asks go through the library's approval channel (once, always for the session, rejected, broad
// prefixes once only), session layers never relax the operator's, and the prompt names what is refused.
import { existsSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApprovalOutcome, ApprovalRequest, CommandApprovalRequest, RuntimeOptions } from '../../src/index.js';
import { background, bash, settledJob, text } from '../helpers/calls.js';
import { runtimes } from '../helpers/runtimes.js';

const open = runtimes();
let serial = 0;

const POLICY: RuntimeOptions['policy'] = {
  rules: [
    { decision: 'deny', command: ['touch'], message: 'no new files here' },
    { decision: 'deny', command: ['git', 'push', ['--force', '-f']], message: 'force-pushing is not allowed here' },
    { decision: 'ask', command: ['mkdir'], message: 'a person approves new directories' },
    { decision: 'ask', command: ['python3'], message: 'a person approves scripts' },
  ],
};

function workdir(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), 'shellring-policy-')));
}

/** A channel that answers each request with the next outcome and records what it was asked. */
function channel(...answers: ApprovalOutcome[]) {
  const asked: ApprovalRequest[] = [];
  const request = async (req: ApprovalRequest): Promise<ApprovalOutcome> => {
    asked.push(req);
    return answers.shift() ?? 'rejected';
  };
  return { asked, request };
}

describe('a denied call', () => {
  it('runs nothing, foreground or background, and returns one line naming the sub-command and the message', async () => {
    const cwd = workdir();
    const runtime = await open({ policy: POLICY });
    const session = runtime.session({ id: `deny-${++serial}`, cwd });
    for (const command of ['touch made.txt', 'ls && touch made.txt', "bash -c 'timeout 5 touch made.txt'", 'echo $(touch made.txt)']) {
      const result = await bash(session, command);
      expect(result.isError).toBe(true);
      expect(text(result)).toBe('[policy: denied — touch: no new files here]');
    }
    const started = await session.callTool('bash', { command: 'touch made.txt', description: 'touch in background', run_in_background: true });
    expect(text(started)).toBe('[policy: denied — touch: no new files here]');
    expect(runtime.jobs!.list()).toEqual([]);
    // A control: the same runtime does create files the policy allows, so the absence above is the policy's.
    expect(text(await bash(session, 'echo hi > allowed.txt && echo ok'))).toBe('ok\n');
    expect(existsSync(join(cwd, 'allowed.txt'))).toBe(true);
    expect(existsSync(join(cwd, 'made.txt'))).toBe(false);
    expect(text(await bash(session, 'git push -f origin main'))).toBe('[policy: denied — git push -f: force-pushing is not allowed here]');
  });

  it('asks nobody when no channel exists: a denial that says so', async () => {
    const cwd = workdir();
    const session = (await open({ policy: POLICY })).session({ id: `nochannel-${++serial}`, cwd });
    expect(text(await bash(session, 'mkdir made'))).toBe(
      '[policy: denied, a person must approve it but no approval channel is available — mkdir: a person approves new directories]',
    );
    expect(existsSync(join(cwd, 'made'))).toBe(false);
  });

  it('checks background calls too: an allowed one runs, an asked one waits for its answer first', async () => {
    const cwd = workdir();
    const { asked, request } = channel('allowed-once');
    const runtime = await open({ policy: POLICY, approval: { request } });
    const session = runtime.session({ id: `bg-${++serial}`, cwd });
    const id = await background(session, 'mkdir made-in-background');
    await settledJob(runtime, id);
    expect(asked.map((r) => r.kind)).toEqual(['command']);
    expect(existsSync(join(cwd, 'made-in-background'))).toBe(true);
  });
});

describe('asking through the library channel', () => {
  it('asks nobody about a background call the job limit would refuse', async () => {
    const cwd = workdir();
    const { asked, request } = channel('allowed-once');
    const runtime = await open({ policy: POLICY, approval: { request }, jobs: { maxJobsPerOwner: 1 } });
    const session = runtime.session({ id: `limit-${++serial}`, cwd });
    const running = await background(session, 'sleep 30');
    const refused = await session.callTool('bash', { command: 'mkdir late', description: 'make a directory later', run_in_background: true });
    expect(text(refused)).toMatch(/^Error: background job limit reached for this owner \(limit: 1\)/);
    expect(asked).toEqual([]);
    runtime.jobs!.kill(running, 'test over');
  });


  it('carries the command, sub-command, rule, cwd and message; allow once runs this call only', async () => {
    const cwd = workdir();
    const { asked, request } = channel('allowed-once', 'rejected');
    const session = (await open({ policy: POLICY, approval: { request } })).session({ id: `once-${++serial}`, cwd });
    expect(text(await bash(session, 'X=1 mkdir one && echo made', { workdir: 'sub/..' }))).toBe('made\n');
    const first = asked[0] as CommandApprovalRequest;
    expect(first).toMatchObject({
      kind: 'command',
      sessionId: session.id,
      toolName: 'bash',
      command: 'X=1 mkdir one && echo made',
      cwd,
      subcommand: 'mkdir',
      message: 'a person approves new directories',
      reason: 'run mkdir: a person approves new directories',
      alwaysPrefix: ['mkdir'],
      rule: { layer: 'runtime', index: 2, decision: 'ask', command: [['mkdir']], label: 'mkdir', message: 'a person approves new directories' },
    });
    expect(text(await bash(session, 'mkdir two'))).toBe('[policy: rejected by the user — mkdir: a person approves new directories]');
    expect(asked).toHaveLength(2);
    expect(existsSync(join(cwd, 'one'))).toBe(true);
    expect(existsSync(join(cwd, 'two'))).toBe(false);
  });

  it('allow always adds the prefix for this session only; a broad prefix is offered once only', async () => {
    const cwd = workdir();
    const { asked, request } = channel('allowed-always', 'allowed-always', 'allowed-always', 'rejected');
    const runtime = await open({ policy: POLICY, approval: { request } });
    const session = runtime.session({ id: `always-${++serial}`, cwd });
    expect(text(await bash(session, 'mkdir a && echo a'))).toBe('a\n');
    expect(session.approvedCommands).toEqual([['mkdir']]);
    expect(text(await bash(session, 'mkdir b && echo b'))).toBe('b\n');
    expect(asked).toHaveLength(1);
    // A bare interpreter is too broad to allow always: the person's "always" counts for this call only.
    expect(text(await bash(session, 'python3 -c "print(1)"'))).toBe('1\n');
    expect((asked[1] as CommandApprovalRequest).alwaysPrefix).toBeUndefined();
    expect(session.approvedCommands).toEqual([['mkdir']]);
    // Another session is asked again.
    const other = runtime.session({ id: `always-other-${++serial}`, cwd });
    expect(text(await bash(other, 'mkdir c'))).toBe('(no output)');
    expect(asked).toHaveLength(3);
    // A rejection refuses that call.
    expect(text(await bash(session, 'python3 -V'))).toBe('[policy: rejected by the user — python3: a person approves scripts]');
  });

  it('reports a cancelled request, and what cannot be resolved is asked once with no "always"', async () => {
    const cwd = workdir();
    const { asked, request } = channel('cancelled', 'allowed-once');
    const session = (await open({ policy: POLICY, approval: { request } })).session({ id: `cancel-${++serial}`, cwd });
    expect(text(await bash(session, 'mkdir x'))).toBe('[policy: approval cancelled — mkdir: a person approves new directories]');
    expect(text(await bash(session, 'C=echo; $C resolved-late'))).toBe('resolved-late\n');
    expect(asked[1]).toMatchObject({
      kind: 'command',
      subcommand: '$C resolved-late',
      rule: null,
      message: 'cannot be checked before it runs (its command name is not a literal word)',
    });
    expect((asked[1] as CommandApprovalRequest).alwaysPrefix).toBeUndefined();
  });
});

describe('layers', () => {
  it("a session's rules add to the operator's and never relax them", async () => {
    const cwd = workdir();
    const runtime = await open({ policy: POLICY });
    const strict = runtime.session({ id: `strict-${++serial}`, cwd, policy: { rules: [{ decision: 'deny', command: ['echo'], message: 'quiet, please' }] } });
    expect(text(await bash(strict, 'echo hi'))).toBe('[policy: denied — echo: quiet, please]');
    const lax = runtime.session({ id: `lax-${++serial}`, cwd, policy: { rules: [{ decision: 'allow', command: ['touch'] }] } });
    expect(text(await bash(lax, 'touch x'))).toBe('[policy: denied — touch: no new files here]');
    expect(existsSync(join(cwd, 'x'))).toBe(false);
    // A session's own policy works without any runtime policy, and its default is the strictest of the layers'.
    const only = (await open()).session({ id: `only-${++serial}`, cwd, policy: { default: 'deny', rules: [{ decision: 'allow', command: ['echo'] }] } });
    expect(text(await bash(only, 'echo fine'))).toBe('fine\n');
    expect(text(await bash(only, 'cat /dev/null'))).toBe("[policy: denied — cat: no rule of this deployment's command policy allows it]");
  });

  it('without rules nothing changes: every command runs', async () => {
    const session = (await open({ policy: { rules: [] } })).session({ id: `none-${++serial}`, cwd: workdir() });
    expect(text(await bash(session, '$(echo echo) unparsed-is-fine'))).toBe('unparsed-is-fine\n');
  });
});

describe('the prompt section', () => {
  it('names what the policy refuses and asks about, and is unchanged without a policy', async () => {
    const plain = (await open()).promptSections()[0]!;
    expect(plain.text).toBe('Check the [exit code: N] marker on every bash result; investigate failures before moving on.');
    const section = (await open({ policy: POLICY })).promptSections()[0]!;
    expect(section).toMatchObject({ name: 'tool:bash', order: 1000 });
    expect(section.text).toBe(
      [
        'Check the [exit code: N] marker on every bash result; investigate failures before moving on.',
        'A command policy applies: a refused command runs nothing and returns `[policy: denied — <command>: <reason>]`; do not try to get around it.',
        'Refused: `touch` (no new files here); `git push --force|-f` (force-pushing is not allowed here).',
        'A person is asked first: `mkdir` (a person approves new directories); `python3` (a person approves scripts).',
      ].join('\n'),
    );
  });
});

describe('loading a policy', () => {
  it('stops createRuntime with an error naming the rule whose example fails', async () => {
    const rules = [
      { decision: 'allow' as const, command: ['ls'] },
      { decision: 'deny' as const, command: ['git', 'push', ['--force', '-f']], examples: { match: ['git push -f', 'git push origin --force'] } },
    ];
    await expect(open({ policy: { rules } })).rejects.toMatchObject({
      code: 'SHELLRING_INVALID_CONFIG',
      message: 'invalid runtime options: policy.rules.1 (git push --force|-f): example "git push origin --force" does not match the rule',
    });
    const notMatch = [{ decision: 'deny' as const, command: ['rm'], examples: { match: ['timeout 5 rm x'], notMatch: ['ls', 'echo rm', 'bash -c "rm y"'] } }];
    await expect(open({ policy: { rules: notMatch } })).rejects.toMatchObject({
      message: 'invalid runtime options: policy.rules.0 (rm): example "bash -c \\"rm y\\"" matches the rule, but is listed under notMatch',
    });
  });

  it('refuses a malformed rule by its path, in runtime and session options', async () => {
    await expect(open({ policy: { rules: [{ decision: 'maybe', command: ['ls'] }] } as never })).rejects.toMatchObject({
      code: 'SHELLRING_INVALID_CONFIG',
      message: expect.stringMatching(/^invalid runtime options: policy\.rules\.0\.decision: /),
    });
    await expect(open({ policy: { rules: [{ decision: 'deny', command: [] }] } })).rejects.toMatchObject({
      message: expect.stringMatching(/^invalid runtime options: policy\.rules\.0\.command: /),
    });
    const runtime = await open();
    expect(() => runtime.session({ id: `bad-${++serial}`, policy: { rules: [{ decision: 'deny', command: ['rm'], examples: { match: ['ls'] } }] } })).toThrow(
      'invalid session options: policy.rules.0 (rm): example "ls" does not match the rule',
    );
  });
});
