// The checker's layers one at a time: an "allowed always" prefix turns a matching ask into allow and never a deny
// (directly and through the bash tool), the strictest decision of every layer wins, and a note on a view's unknown
// word is what the person reads.
import { describe, expect, it } from 'vitest';
import { check, loadPolicy, type ApprovalOutcome, type ApprovalRequest } from '../../src/index.js';
import { compileRules } from '../../src/policy/rules.js';
import { bash, text } from '../helpers/calls.js';
import { runtimes } from '../helpers/runtimes.js';

const open = runtimes();

const GIT = loadPolicy(
  {
    rules: [
      { decision: 'ask', command: ['git', 'push'], message: 'pushing needs a person' },
      { decision: 'deny', command: ['git', 'push', ['--force', '-f']], message: 'force-pushing is not allowed here' },
      { decision: 'deny', command: ['rm'], message: 'no removal' },
    ],
  },
  'runtime',
  'runtime options',
  'policy.',
);

describe('an "allowed always" prefix', () => {
  it('turns the ask it covers into allow', () => {
    expect(check('git push origin main', { policies: [GIT] }).decision).toBe('ask');
    expect(check('git push origin main', { policies: [GIT], approved: [['git', 'push']] }).decision).toBe('allow');
    expect(check('git -C . push', { policies: [GIT], approved: [['git', 'push']] }).decision).toBe('allow');
  });

  it('never lets through what a deny rule matches, however it is spelled', () => {
    for (const command of ['git push --force', 'git push -f origin main', 'git -C . push --force', 'timeout 5 git push -f', 'git-push --force']) {
      const evaluation = check(command, { policies: [GIT], approved: [['git', 'push']] });
      expect(evaluation.decision, command).toBe('deny');
      expect(evaluation.reason, command).toMatch(/: force-pushing is not allowed here$/);
    }
    // Even a prefix that covers the denied words exactly.
    expect(check('git push --force', { policies: [GIT], approved: [['git', 'push', '--force']] }).decision).toBe('deny');
    expect(check('rm -rf x', { policies: [GIT], approved: [['rm']] }).decision).toBe('deny');
  });

  it('does not cover what it does not prefix', () => {
    expect(check('git push', { policies: [GIT], approved: [['git', 'pull']] }).decision).toBe('ask');
  });
});

describe('layers', () => {
  it('the strictest decision of every layer wins; a lower layer never relaxes a higher one', () => {
    const session = compileRules('session', [{ decision: 'allow', command: ['rm'] }, { decision: 'deny', command: ['ls'] }]);
    expect(check('rm x', { policies: [GIT, session] }).decision).toBe('deny');
    expect(check('ls', { policies: [GIT, session] }).decision).toBe('deny');
    expect(check('git status', { policies: [GIT, session] }).decision).toBe('allow');
  });

  it('asks with the reason a view gives for a word it cannot see', () => {
    const evaluation = check('echo x | xargs git', { policies: [GIT] });
    expect(evaluation.decision).toBe('ask');
    expect(evaluation.reason).toMatch(/cannot be checked before it runs \(.*(git|xargs).*\)/);
    expect(check('git psuh', { policies: [GIT] }).reason).toBe(
      'git …: cannot be checked before it runs ("psuh" is not a git command, so an alias from its configuration may decide what runs)',
    );
  });
});

describe('through the bash tool', () => {
  it('a person allows `git push` always; `git push --force` is still refused and runs nothing', async () => {
    const asked: ApprovalRequest[] = [];
    const request = async (req: ApprovalRequest): Promise<ApprovalOutcome> => {
      asked.push(req);
      return 'allowed-always';
    };
    const runtime = await open({
      policy: {
        rules: [
          { decision: 'ask', command: ['git', 'push'], message: 'pushing needs a person' },
          { decision: 'deny', command: ['git', 'push', ['--force', '-f']], message: 'force-pushing is not allowed here' },
        ],
      },
      approval: { request },
    });
    const session = runtime.session({ id: 'always-deny' });
    // `git push` in a directory with no repository: git fails, but the call was allowed to run it.
    expect(text(await bash(session, 'git push 2>/dev/null; echo ran'))).toBe('ran\n');
    expect(session.approvedCommands).toEqual([['git', 'push']]);
    expect(text(await bash(session, 'git push --force; echo ran'))).toBe('[policy: denied — git push --force: force-pushing is not allowed here]');
    expect(text(await bash(session, 'git -C . push -f; echo ran'))).toBe('[policy: denied — git push -f: force-pushing is not allowed here]');
    expect(asked).toHaveLength(1);
  });
});
