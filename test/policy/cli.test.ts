// --policy on run, mcp and serve, and `policy` in --config: the rules apply, --policy replaces the file's, and a
// malformed rule or a failing example stops the command with exit status 2 and an error naming the rule.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { call, cli, newClient, textOf, workdir } from '../faces/helpers.js';

const work = workdir('cli-policy');
afterAll(() => rmSync(work, { recursive: true, force: true }));

function file(name: string, value: unknown): string {
  const path = join(work, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

function shellring(args: string[]) {
  const result = spawnSync(process.execPath, [cli, ...args], { cwd: work, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const denyTouch = { rules: [{ decision: 'deny', command: ['touch'], message: 'no new files here' }] };

describe('run', () => {
  it('applies --policy and the config file’s policy, --policy replacing the file’s', () => {
    const policy = file('deny-touch.json', denyTouch);
    expect(shellring(['run', '--policy', policy, '--', 'touch a.txt'])).toEqual({ status: 1, stdout: '', stderr: '[policy: denied — touch: no new files here]\n' });
    const config = file('config.json', { policy: { rules: [{ decision: 'deny', command: ['echo'], message: 'quiet' }] } });
    expect(shellring(['run', '--config', config, '--', 'echo hi']).stderr).toBe('[policy: denied — echo: quiet]\n');
    expect(shellring(['run', '--config', config, '--policy', policy, '--', 'echo hi'])).toEqual({ status: 0, stdout: 'hi\n', stderr: '' });
    expect(existsSync(join(work, 'a.txt'))).toBe(false);
  });

  it('stops with exit status 2 naming the rule whose example fails, or the malformed field', () => {
    const failing = file('failing.json', { rules: [{ decision: 'deny', command: ['rm'], examples: { notMatch: ['timeout 1 rm x'] } }] });
    expect(shellring(['run', '--policy', failing, '--', 'true'])).toEqual({
      status: 2,
      stdout: '',
      stderr: `shellring run: invalid --policy '${failing}': rules.0 (rm): example "timeout 1 rm x" matches the rule, but is listed under notMatch\nRun 'shellring run --help' for usage.\n`,
    });
    const inConfig = file('failing-config.json', { policy: { rules: [{ decision: 'ask', command: ['npm', 'publish'], examples: { match: ['npm pub'] } }] } });
    expect(shellring(['run', '--config', inConfig, '--', 'true']).stderr).toBe(
      `shellring run: invalid --config '${inConfig}': policy.rules.0 (npm publish): example "npm pub" does not match the rule\nRun 'shellring run --help' for usage.\n`,
    );
    const malformed = file('malformed.json', { rules: [{ decision: 'forbid', command: ['rm'] }] });
    const result = shellring(['run', '--policy', malformed, '--', 'true']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^shellring run: invalid --policy '${malformed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}': rules\\.0\\.decision: `));
    expect(shellring(['run', '--policy', join(work, 'missing.json'), '--', 'true']).stderr).toMatch(/^shellring run: cannot read --policy '/);
  });
});

describe('mcp', () => {
  it('serves with --policy: a denied call returns the policy line and runs nothing', async () => {
    const policy = file('mcp-policy.json', denyTouch);
    const tc = newClient('cli-policy');
    await tc.client.connect(new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp', '--cwd', work, '--policy', policy], stderr: 'ignore' }));
    try {
      expect(textOf(await call(tc.client, 'bash', { command: 'touch b.txt', description: 'make a file' }))).toBe('[policy: denied — touch: no new files here]');
      expect(existsSync(join(work, 'b.txt'))).toBe(false);
    } finally {
      await tc.client.close();
    }
  });
});
