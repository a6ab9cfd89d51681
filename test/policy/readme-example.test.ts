// The worked policy example of docs/policies.md, run as written: its policy file, its command, and exactly what it prints.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, repo } from '../faces/helpers.js';

const section = readFileSync(join(repo, 'docs/policies.md'), 'utf8');
const block = (lang: string) => new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(section)![1]!;

describe('docs/policies.md: the worked example', () => {
  it('prints exactly the line shown, runs nothing, and exits 1', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-readme-policy-')));
    writeFileSync(join(dir, 'policy.json'), block('json'));
    const command = block('sh').trim();
    expect(command.startsWith('npx shellring run ')).toBe(true);
    const result = spawnSync('bash', ['-c', command.replace(/^npx shellring /, `node ${cli} `)], { cwd: dir, encoding: 'utf8' });
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(block('text'));
    expect(result.status).toBe(1);
  });

  it('shows a load error exactly as createRuntime words it', async () => {
    const { createRuntime } = await import('../../src/index.js');
    const policy = JSON.parse(block('json'));
    policy.rules[0].examples.match.push('git push origin --force');
    const shown = /`(invalid runtime options: policy\.rules\.0\s+\(git push[^`]*)`/.exec(section)![1]!.replace(/\s*\n\s*/g, ' ');
    await expect(createRuntime({ policy })).rejects.toThrow(shown);
  });
});
