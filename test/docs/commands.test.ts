// Every command block (sh, bash, console) of README.md and docs/ is checked: run here (in a scratch directory,
// against a real server where it needs one), run by the test named beside it, or listed as not runnable here with
// the reason. A block that is none of these fails, and so does an entry whose block is gone.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/until.js';
import { cli, httpTransport, repo } from '../faces/helpers.js';
import { blocks, pages } from './pages.js';

const COMMAND_LANGS = new Set(['sh', 'bash', 'console', 'shell']);
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-doc-commands-')));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** `shellring …` and `npx shellring …` as this checkout runs them: its built CLI. */
const inRepo = (command: string) => command.replace(/(^|\n)(?:npx )?shellring /g, `$1node ${cli} `);

/** Runs a block whose last line starts `shellring serve` (port 0), waits until it listens, calls bash over MCP, stops it. */
async function serveAndCall(block: string, dir: string, token?: () => string): Promise<void> {
  const lines = inRepo(block).replace(/--port \d+/, '--port 0').trimEnd().split('\n');
  const script = [...lines.slice(0, -1), `exec ${lines.at(-1)}`].join('\n');
  const server = spawn('bash', ['-c', script], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  server.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    // The address and the generated token are two lines, which may arrive in two reads.
    const { url, secret } = await until(
      () => {
        const url = /MCP server listening on (\S+)/.exec(stderr)?.[1];
        // A token file exists once the server listens: it read it first.
        if (!url) return undefined;
        const secret = token ? token() : /generated for this run\): (\S+)/.exec(stderr)?.[1];
        return secret ? { url, secret } : undefined;
      },
      30_000,
      `the server of: ${block}`,
    );
    const client = new Client({ name: 'docs-command', version: '1.0.0' });
    await client.connect(httpTransport(url.replace('0.0.0.0', '127.0.0.1'), secret));
    const result = await client.callTool({ name: 'bash', arguments: { command: 'pwd', description: 'Print the directory' } });
    expect((result.content as { text: string }[])[0]!.text).toMatch(/^\/.*\n$/);
    await client.close();
  } finally {
    server.kill('SIGINT');
  }
}

type Check = { run: (block: string, page: string) => void | Promise<void> } | { elsewhere: string; proof: string } | { notRunnable: string };

/** Each command block of the pages, by its exact text, and how it is checked. */
const CHECKS: Record<string, Check> = {
  'npm ci && npm run build && npm run demo': { elsewhere: 'test/readme.test.ts', proof: 'installs, builds and runs the main job from a clean copy' },
  'npm test': { notRunnable: 'it is the suite this test belongs to; .ci/run runs it on a clean clone (test/readme.test.ts checks that)' },
  'cd /path/to/your/project\nnpm install /path/to/shellring': { elsewhere: 'test/readme.test.ts', proof: 'npm install /path/to/shellring' },
  'claude mcp add shellring -- node /path/to/shellring/dist/src/cli/main.js mcp --cwd /path/to/project --sandbox workspace-write': {
    notRunnable: 'Claude Code is not installed here; test/readme.test.ts starts the server command after `--` as a client would',
  },
  'claude mcp add shellring -- npx -y -p shellring -p @modelcontextprotocol/sdk -p @modelcontextprotocol/server shellring mcp --cwd /path/to/project --sandbox workspace-write': {
    notRunnable: 'Claude Code is not installed here, and `npx -y shellring` needs a release; test/readme.test.ts starts the same server from the package bin',
  },
  'shellring serve --port 8808 --cwd /path/to/project --sandbox workspace-write': {
    run: (block) => serveAndCall(block.replace('/path/to/project', scratch), scratch),
  },
  "npx shellring run -- 'echo hello; echo oops >&2; exit 3'": {
    run: (block, page) => {
      const shown = /prints what a model would see:\n\n```text\n([\s\S]*?)```/.exec(page)![1]!;
      const out = spawnSync('bash', ['-c', inRepo(block)], { cwd: scratch, encoding: 'utf8' });
      expect(`${out.stdout}\n`).toBe(shown);
    },
  },
  'npm install shellring': { elsewhere: 'test/package/registry.test.ts', proof: "install(consumer, ['shellring'])" },
  [[
    '# in a clone of this repository (needs Rust and Node 22.12+)',
    'npm ci && npm run build',
    'npm run package:platforms -- --out /tmp/shellring-pack   # a directory that does not exist yet',
    'cd /path/to/your/project',
    'npm install /tmp/shellring-pack/tarballs/shellring-0.1.0.tgz /tmp/shellring-pack/tarballs/shellring-binding-linux-x64-gnu-0.1.0.tgz',
  ].join('\n')]: { elsewhere: 'test/package/pack.test.ts', proof: '.ci/package-platforms.mjs' },
  "npx shellring run --policy policy.json -- 'ls >/dev/null && bash -c \"git push -f origin main\"'": {
    elsewhere: 'test/policy/readme-example.test.ts',
    proof: 'docs/policies.md',
  },
  "tar -xzOf \"$(npm pack --silent @shellring/binding-linux-x64-musl)\" package/shellring-runner.linux-x64-musl | ssh agent@build-1.internal 'install -D -m 0755 /dev/stdin ~/.local/bin/shellring-runner'": {
    notRunnable: 'the platform package is on npm only after a release, and it needs an SSH host; test/executor/remote/ runs the runner over SSH to a local sshd',
  },
  'openssl rand -base64 32 > token && chmod 600 token\nshellring serve --host 0.0.0.0 --port 8808 --token-file token': {
    run: async (block) => {
      const dir = mkdtempSync(join(scratch, 'serve-'));
      await serveAndCall(block, dir, () => readFileSync(join(dir, 'token'), 'utf8').trim());
    },
  },
  'for i in 1 2 3; do shellring serve --port 880$i --instance-id s$i --token-file token & done\nhaproxy -f deploy/haproxy.cfg -db   # clients use http://127.0.0.1:8800/mcp with the same token': {
    elsewhere: 'test/deploy/haproxy.test.ts',
    proof: 'deploy/haproxy.cfg',
  },
};

const found = pages().flatMap(({ file, text }) =>
  blocks(text)
    .filter((block) => COMMAND_LANGS.has(block.lang))
    .map((block) => ({ file, text, body: block.body.trimEnd() })),
);

describe('command blocks of README.md and docs/', () => {
  it('has a check for every block, and no check whose block is gone', () => {
    for (const { file, body } of found) expect(CHECKS[body], `${file}: add a check for\n${body}`).toBeDefined();
    const bodies = new Set(found.map(({ body }) => body));
    for (const body of Object.keys(CHECKS)) expect(bodies.has(body), `no page holds\n${body}`).toBe(true);
  });

  it.each(found.map(({ file, text, body }) => [file, body.split('\n')[0]!, body, text] as const))('%s: %s', async (_file, _first, body, text) => {
    const check = CHECKS[body];
    if (!check) return;
    if ('run' in check) await check.run(body, text);
    else if ('elsewhere' in check) expect(readFileSync(join(repo, check.elsewhere), 'utf8'), `${check.elsewhere} runs it`).toContain(check.proof);
    else expect(check.notRunnable.length).toBeGreaterThan(20);
  }, 120_000);

  it("names the tarballs npm pack makes for this package's version", () => {
    const { version } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
    const install = Object.keys(CHECKS).find((body) => body.includes('package:platforms'))!;
    expect(install).toContain(`shellring-${version}.tgz`);
    expect(install).toContain(`shellring-binding-linux-x64-gnu-${version}.tgz`);
  });
});
