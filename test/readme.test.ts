// Runs every command and code sample of README.md, so the README cannot rot.
import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { serveHttp } from '../src/faces/mcp/index.js';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { benchTable } from '../bench/table.js';

const root = join(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** Fenced blocks of one language, in order. */
function blocks(lang: string): string[] {
  return [...readme.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}

const shBlocks = blocks('sh').map((block) => block.trim());
/** The shell block that starts with `prefix`. */
const sh = (prefix: string) => shBlocks.find((block) => block.startsWith(prefix))!;
const install = sh('npm ci');
const testCommand = sh('npm test');
const cliExample = sh('npx shellring run');
/** In this repository the package is not installed in itself: `npx shellring` is its built bin. */
const inRepo = (command: string) => command.replace(/^npx shellring /, `node ${join(root, 'dist/src/cli/main.js')} `);

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
    const out = execFileSync('bash', ['-c', inRepo(cliExample)], { cwd: root, encoding: 'utf8' });
    expect(`${out}\n`).toBe(shown);
  });

  it('installs with `npm install shellring` (test/package/pack.test.ts installs the packed tarballs that way)', () => {
    expect(sh('npm install')).toBe('npm install shellring');
    expect(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).name).toBe('shellring');
  });

  it('gives a stdio MCP configuration that works when the client starts it in /', async () => {
    const config = JSON.parse(blocks('json')[0]!) as { mcpServers: Record<string, { command: string; args: string[] }> };
    const { command, args } = config.mcpServers.shellring!;
    expect(command).toBe('npx');
    expect(args.slice(0, 3)).toEqual(['-y', 'shellring', 'mcp']);
    const bin = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).bin[args[1]!];
    const project = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-readme-project-')));
    // The README's placeholder project, swapped for a real one; the client starts the server in / as some do.
    const serverArgs = args.slice(2).map((arg, i, all) => (all[i - 1] === '--cwd' ? project : arg));
    expect(args[args.indexOf('--cwd') + 1]).toMatch(/^\//);
    const client = new Client({ name: 'readme', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [join(root, bin), ...serverArgs], cwd: '/' }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['bash', 'job_output', 'job_list', 'job_kill']);
      const result = await client.callTool({ name: 'bash', arguments: { command: 'pwd && echo kept > note.txt', description: 'Write a note in the project' } });
      expect((result.content as { text: string }[])[0]!.text).toBe(`${project}\n`);
      expect(readFileSync(join(project, 'note.txt'), 'utf8')).toBe('kept\n');
    } finally {
      await client.close();
      rmSync(project, { recursive: true, force: true });
    }
    // Without --cwd, a sandboxed server started in / refuses at once and names the flag.
    const withoutCwd = serverArgs.filter((arg, i, all) => arg !== '--cwd' && all[i - 1] !== '--cwd');
    const refused = spawnSync(process.execPath, [join(root, bin), ...withoutCwd], { cwd: '/', input: '', encoding: 'utf8' });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('pass --cwd <project directory>');
  }, 60_000);

  it('gives an HTTP MCP configuration that reaches `serve` with its token', async () => {
    const config = JSON.parse(blocks('json')[1]!) as { mcpServers: Record<string, { type: string; url: string; headers: Record<string, string> }> };
    const { type, url, headers } = config.mcpServers.shellring!;
    expect(type).toBe('http');
    expect(headers.Authorization).toMatch(/^Bearer /);
    const server = await serveHttp({ port: 0 });
    const client = new Client({ name: 'readme-http', version: '1.0.0' });
    try {
      const live = new URL(url);
      live.port = String(server.port);
      const transport = new StreamableHTTPClientTransport(live, { requestInit: { headers: { Authorization: `Bearer ${server.token}` } } });
      await client.connect(transport);
      const result = await client.callTool({ name: 'bash', arguments: { command: 'echo over http', description: 'Say something' } });
      expect((result.content as { text: string }[])[0]!.text).toBe('over http\n');
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('links the generated configuration reference', () => {
    expect(readme).toContain('[docs/configuration.md](docs/configuration.md)');
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
