// Runs what README.md tells a newcomer to do, so it cannot rot: the quick start on a clean copy, the library in a
// project that installed the clone, every MCP client configuration it shows (started as the client would), and the
// samples of the docs pages; the benchmark table and charts are what bench/results/latest.json gives.
import { describe, expect, it } from 'vitest';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { serveHttp } from '../src/faces/mcp/index.js';
import { FACE_PEERS } from '../src/faces/peers.js';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { benchTable } from '../bench/table.js';
import { benchCharts } from '../bench/charts.js';
import { until } from './helpers/until.js';
import { blocks } from './docs/pages.js';

const root = join(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const page = (file: string) => readFileSync(join(root, file), 'utf8');
const of = (text: string, lang: string) => blocks(text).filter((block) => block.lang === lang).map((block) => block.body);

const shBlocks = of(readme, 'sh').map((block) => block.trim());
/** The shell block that starts with `prefix`. */
const sh = (prefix: string) => shBlocks.find((block) => block.startsWith(prefix))!;

function scratch(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), `shellring-readme-${prefix}-`)));
}

/** A server command as README shows it, for this checkout: its clone path, a real project, the package's own bin. */
function local(args: string[], project: string): string[] {
  const swapped = args.map((arg) => arg.replace('/path/to/shellring', root).replace('/path/to/project', project));
  if (swapped[0] === 'npx') {
    // After a release `npx -y -p shellring -p <the MCP face's packages> shellring` runs the package's bin (fetched
    // with the packages its face needs; test/package/registry.test.ts runs it from a registry); here that bin is this
    // checkout's.
    const fetched = swapped.flatMap((arg, i) => (swapped[i - 1] === '-p' ? [arg] : []));
    expect(fetched).toEqual(['shellring', ...FACE_PEERS.mcp]);
    const bin = 2 + 2 * fetched.length;
    return [process.execPath, join(root, pkg.bin[swapped[bin]!]), ...swapped.slice(bin + 1)];
  }
  return swapped[0] === 'node' ? [process.execPath, ...swapped.slice(1)] : swapped;
}

/** `[mcp_servers.shellring]` of a TOML block: its keys, each value read as JSON (strings, arrays, numbers). */
function toml(block: string): Record<string, unknown> {
  expect(block.startsWith('[mcp_servers.shellring]\n')).toBe(true);
  const entries = block
    .split('\n')
    .slice(1)
    .filter((line) => line.trim())
    .map((line) => /^(\w+) = (.+)$/.exec(line)!.slice(1) as [string, string]);
  return Object.fromEntries(entries.map(([key, value]) => [key, JSON.parse(value)]));
}

/** Every stdio configuration of the README as [where, command and args]. */
function stdioConfigs(): [string, string[]][] {
  const configs: [string, string[]][] = [];
  for (const block of shBlocks.filter((b) => b.startsWith('claude mcp add shellring -- '))) configs.push([block, block.split(' -- ')[1]!.split(' ')]);
  for (const block of of(readme, 'json')) {
    const server = JSON.parse(block).mcpServers.shellring;
    if (server.command) configs.push([`json: ${server.command}`, [server.command, ...server.args]]);
  }
  for (const block of of(readme, 'toml')) {
    const server = toml(block);
    if (server.command) configs.push([`toml: ${server.command}`, [server.command as string, ...(server.args as string[])]]);
  }
  return configs;
}

async function callPwd(client: Client): Promise<string> {
  const result = await client.callTool({ name: 'bash', arguments: { command: 'pwd && echo kept > note.txt', description: 'Write a note in the project' } });
  return (result.content as { text: string }[])[0]!.text;
}

describe('README', () => {
  it('names the test command that .ci/run runs and package.json defines', () => {
    expect(sh('npm test')).toBe('npm test');
    expect(readFileSync(join(root, '.ci/run'), 'utf8')).toMatch(/^\s*npm test$/m);
    expect(pkg.scripts.test).toContain('vitest run');
  });

  it('names the Node lines .ci/run tests, from the one package.json admits first to the newest LTS', () => {
    const ci = readFileSync(join(root, '.ci/run'), 'utf8');
    const others = /^NODE_OTHERS=\(([\d ]+)\)$/m.exec(ci)![1]!.split(' ');
    const lines = [...others, /^NODE_NEWEST=(\d+)$/m.exec(ci)![1]!].map(Number);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
    const engines = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines.node as string;
    expect(engines).toMatch(new RegExp(`^>=${lines[0]}\\.\\d+$`));
    expect(page('docs/install.md')).toContain(`**Node ${engines.slice(2)} or newer**, tested on the LTS lines ${lines.slice(0, -1).join(', ')} and ${lines.at(-1)}.`);
  });

  it('installs, builds and runs the main job from a clean copy, printing the excerpt shown', () => {
    const copy = scratch('copy');
    try {
      const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root })
        .toString()
        .split('\0')
        .filter(Boolean);
      for (const file of files) {
        mkdirSync(dirname(join(copy, file)), { recursive: true });
        cpSync(join(root, file), join(copy, file), { recursive: true });
      }
      const out = execFileSync('bash', ['-c', sh('npm ci')], {
        cwd: copy,
        encoding: 'utf8',
        timeout: 600_000,
        env: { ...process.env, npm_config_prefer_offline: 'true' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      expect(out).toContain(of(readme, 'text')[0]!);
      expect(out).toMatch(/\[output truncated; full output: \/.+\.stdout\.log\]/);
      expect(out).toContain('started background job bash-');
      expect(out).toContain('[still running after 500ms; moved to background job bash-');
      expect(out).toContain('tick 4\n[status: completed, exit code: 0]');
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }, 660_000);

  it('installs the clone into a project (npm install /path/to/shellring) and runs the library example there', () => {
    const project = scratch('project');
    try {
      execFileSync('npm', ['init', '-y'], { cwd: project, stdio: 'ignore' });
      const install = sh('cd /path/to/your/project').replace('/path/to/your/project', project).replace('/path/to/shellring', root);
      execFileSync('bash', ['-c', install], { encoding: 'utf8', env: { ...process.env, npm_config_offline: 'true' }, stdio: 'ignore' });
      for (const name of ['a-file', 'b-file', 'c-file', 'd-file']) writeFileSync(join(project, name), '');
      writeFileSync(join(project, 'example.mjs'), of(readme, 'js')[0]!);
      const out = execFileSync(process.execPath, ['example.mjs'], { cwd: project, encoding: 'utf8', timeout: 60_000 });
      expect(out).toBe('a-file\nb-file\nc-file\n[exit code: 2]\n');
      // And its command line, as `npx shellring` in that project.
      expect(execFileSync('npx', ['shellring', 'run', '--', 'echo from the project'], { cwd: project, encoding: 'utf8', env: { ...process.env, npm_config_offline: 'true' } })).toBe(
        'from the project\n',
      );
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  }, 180_000);

  it.each(stdioConfigs())('starts the stdio configuration %s as a client does, from /', async (_where, command) => {
    const project = scratch('stdio');
    const [file, ...args] = local(command, project);
    expect(command.slice(command.indexOf('mcp'))).toEqual(expect.arrayContaining(['--cwd', '/path/to/project']));
    const client = new Client({ name: 'readme', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: file!, args, cwd: '/' }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['bash', 'job_output', 'job_list', 'job_kill', 'job_input']);
      expect(await callPwd(client)).toBe(`${project}\n`);
      expect(readFileSync(join(project, 'note.txt'), 'utf8')).toBe('kept\n');
    } finally {
      await client.close();
      rmSync(project, { recursive: true, force: true });
    }
    // Without --cwd, a sandboxed server started in / refuses at once and names the flag.
    const withoutCwd = args.filter((arg, i, all) => arg !== '--cwd' && all[i - 1] !== '--cwd');
    const refused = spawnSync(file!, withoutCwd, { cwd: '/', input: '', encoding: 'utf8' });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('pass --cwd <project directory>');
  }, 60_000);

  it('puts a working `shellring` command on the PATH with npm link', async () => {
    const prefix = scratch('link');
    const project = scratch('linked-project');
    try {
      execFileSync('npm', ['link'], { cwd: root, env: { ...process.env, npm_config_prefix: prefix, npm_config_offline: 'true' }, stdio: 'ignore' });
      const client = new Client({ name: 'readme-link', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command: join(prefix, 'bin/shellring'), args: ['mcp', '--cwd', project], cwd: '/' }));
      expect(await callPwd(client)).toBe(`${project}\n`);
      await client.close();
    } finally {
      rmSync(prefix, { recursive: true, force: true });
      rmSync(project, { recursive: true, force: true });
    }
  }, 120_000);

  it('reaches `serve` with every HTTP configuration it shows', async () => {
    const server = await serveHttp({ port: 0 });
    const live = (url: string) => Object.assign(new URL(url), { port: String(server.port) });
    const [jsonHttp] = of(readme, 'json').map((block) => JSON.parse(block).mcpServers.shellring).filter((config) => config.type === 'http');
    const [tomlHttp] = of(readme, 'toml').map(toml).filter((config) => config.url);
    const inline = /`claude mcp add --transport http shellring (\S+) --header "Authorization: Bearer <token>"`/.exec(readme)!;
    expect(jsonHttp.headers.Authorization).toMatch(/^Bearer /);
    expect(tomlHttp!.bearer_token_env_var).toBe('SHELLRING_TOKEN');
    const targets = [jsonHttp.url, tomlHttp!.url, inline[1]!];
    try {
      for (const url of targets) {
        const client = new Client({ name: 'readme-http', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(live(url), { requestInit: { headers: { Authorization: `Bearer ${server.token}` } } }));
        const result = await client.callTool({ name: 'bash', arguments: { command: 'echo over http', description: 'Say something' } });
        expect((result.content as { text: string }[])[0]!.text).toBe('over http\n');
        await client.close();
      }
    } finally {
      await server.close();
    }
  });

  it('links the generated configuration reference', () => {
    expect(readme).toContain('[docs/configuration.md](docs/configuration.md)');
  });
});

describe('samples of the docs pages', () => {
  /** Runs a sample inside the package, so `shellring` resolves to this package by its own name. */
  function runSample(code: string, env: NodeJS.ProcessEnv = {}, timeout = 60_000) {
    const workspace = scratch('ws');
    const file = join(root, `.readme-sample-${process.pid}-${Math.random().toString(36).slice(2)}.mjs`);
    writeFileSync(file, code);
    try {
      return execFileSync(process.execPath, [file], { cwd: workspace, encoding: 'utf8', timeout, env: { ...process.env, ...env } });
    } finally {
      rmSync(file, { force: true });
      rmSync(workspace, { recursive: true, force: true });
    }
  }

  it('runs the Cordis composition of docs/library.md', () => {
    expect(runSample(of(page('docs/library.md'), 'js')[0]!)).toBe('hi\n\n');
  });

  it('mounts the console of docs/console.md in a server of its own', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const code = of(page('docs/console.md'), 'javascript')[0]!;
    expect(code).toContain('.listen(8809,');
    const file = join(root, `.readme-console-${process.pid}.mjs`);
    writeFileSync(file, code.replace('.listen(8809,', `.listen(${port},`));
    const child = spawn(process.execPath, [file], { cwd: root, env: { ...process.env, CONSOLE_TOKEN: 'docs-console-token-0123456789' }, stdio: 'ignore' });
    try {
      const status = await until(
        () => fetch(`http://127.0.0.1:${port}/`).then((res) => res.status, () => 0),
        30_000,
        'the mounted console',
      );
      // No sign-in yet: the sign-in page.
      expect(status).toBe(401);
    } finally {
      child.kill('SIGINT');
      rmSync(file, { force: true });
    }
  });

  it('carries the benchmark table and charts generated from bench/results/latest.json', () => {
    const benchmarks = page('docs/benchmarks.md');
    const table = benchmarks.split('<!-- bench:start -->\n')[1]!.split('<!-- bench:end -->')[0]!;
    expect(table.trim()).toBe(benchTable(join(root, 'bench/results/latest.json')).trim());
    const { files, markdown } = benchCharts(join(root, 'bench/results/latest.json'), root);
    expect(benchmarks.split('<!-- charts:start -->\n')[1]!.split('<!-- charts:end -->')[0]!.trim()).toBe(markdown);
    for (const [name, svg] of files) {
      // On failure: npm run build && npm run bench:charts, and commit docs/bench/.
      expect(readFileSync(join(root, 'docs/bench', name), 'utf8'), name).toBe(svg);
      const parsed = spawnSync('python3', ['-c', 'import sys, xml.etree.ElementTree as E; E.fromstring(sys.stdin.read())'], { input: svg, encoding: 'utf8' });
      expect(parsed.status, `${name}: ${parsed.stderr}`).toBe(0);
    }
  });
});
