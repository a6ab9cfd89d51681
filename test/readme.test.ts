// Runs every command and code sample of README.md, so the README cannot rot.
import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { benchTable } from '../bench/table.js';

const root = join(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** Fenced blocks of one language, in order. */
function blocks(lang: string): string[] {
  return [...readme.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}

const [install, testCommand, cliExample] = blocks('sh').map((block) => block.trim());

describe('README', () => {
  it('names the test command that .ci/run runs and package.json defines', () => {
    expect(testCommand).toBe('npm test');
    expect(readFileSync(join(root, '.ci/run'), 'utf8')).toMatch(/^npm test$/m);
    expect(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.test).toContain('vitest run');
  });

  it('installs, builds and runs the main job from a clean copy', () => {
    const copy = mkdtempSync(join(tmpdir(), 'shellring-readme-'));
    try {
      const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root })
        .toString()
        .split('\0')
        .filter(Boolean);
      for (const file of files) {
        mkdirSync(dirname(join(copy, file)), { recursive: true });
        cpSync(join(root, file), join(copy, file), { recursive: true });
      }
      const out = execFileSync('bash', ['-c', install!], {
        cwd: copy,
        encoding: 'utf8',
        timeout: 600_000,
        env: { ...process.env, npm_config_prefer_offline: 'true' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      expect(out).toContain('error: missing config.toml\n[exit code: 3]');
      expect(out).toMatch(/\[output truncated; full output: \/.+\.stdout\.log\]/);
      expect(out).toContain('started background job bash-');
      expect(out).toContain('[still running after 500ms; moved to background job bash-');
      expect(out).toContain('tick 4\n[status: completed, exit code: 0]');
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }, 660_000);

  it('shows exactly what the CLI prints', () => {
    const shown = blocks('text')[0]!;
    const out = execFileSync('bash', ['-c', cliExample!], { cwd: root, encoding: 'utf8' });
    expect(`${out}\n`).toBe(shown);
  });

  it('gives an MCP client configuration that starts the server', () => {
    const config = JSON.parse(blocks('json')[0]!) as { mcpServers: Record<string, { command: string; args: string[] }> };
    const { command, args } = config.mcpServers.shellring!;
    expect(command).toBe('npx');
    const bin = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).bin[args[0]!];
    const help = spawnSync(process.execPath, [join(root, bin), ...args.slice(1), '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: shellring mcp');
  });

  it('runs the library and Cordis samples', () => {
    const workspace = mkdtempSync(join(tmpdir(), 'shellring-readme-ws-'));
    const [library, cordis] = blocks('js');
    const outputs = [library, cordis].map((code, i) => {
      // Inside the package, so `shellring` resolves to this package by its own name.
      const file = join(root, `.readme-sample-${process.pid}-${i}.mjs`);
      writeFileSync(file, code!);
      try {
        return execFileSync(process.execPath, [file], { cwd: workspace, encoding: 'utf8', timeout: 60_000 });
      } finally {
        rmSync(file, { force: true });
      }
    });
    rmSync(workspace, { recursive: true, force: true });
    expect(outputs[0]).toMatch(/\[exit code: 2\]\n$/);
    expect(outputs[1]).toBe('hi\n\n');
  });

  it('carries the benchmark table generated from bench/results/latest.json', () => {
    const section = readme.split('<!-- bench:start -->\n')[1]!.split('<!-- bench:end -->')[0]!;
    expect(section.trim()).toBe(benchTable(join(root, 'bench/results/latest.json')).trim());
  });
});
