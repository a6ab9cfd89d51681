// Publishes the packed packages to a real registry (Verdaccio) and installs `shellring` from it as a user would.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerEnv, hostPlatform } from './consumer.js';
import { startRegistry, type Registry } from './verdaccio.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
const { binaryName, packageName } = manifest.napi as { binaryName: string; packageName: string };
const platformPackage = `${packageName}-${hostPlatform()}`;
const readme = readFileSync(join(repo, 'README.md'), 'utf8');

let work: string;
let registry: Registry;
let env: NodeJS.ProcessEnv;
let rootTarball: string;
/** Installed as a user would; with optional dependencies omitted; as if for a platform with no binary. */
let consumer: string;
let omitted: string;
let elsewhere: string;
let platformTarball: string;

/** The integrity string npm records for a tarball. */
function integrity(tarball: string): string {
  return `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
}

/** An empty project directory, as `npm init -y` leaves it. */
function project(name: string): string {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true }));
  return dir;
}

/**
 * `npm install shellring` from the test registry, with `extra` flags; the user's npmrc holds no publish token.
 * After the first install, `--prefer-offline` lets npm reuse the metadata it fetched from this registry rather than
 * revalidate every package through Verdaccio's upstream proxy.
 */
async function install(dir: string, extra: string[] = []): Promise<void> {
  await promisify(execFile)('npm', ['install', 'shellring', '--registry', registry.url, ...extra], { cwd: dir, env });
}

/** Runs `command` in bash in `dir` without reaching any registry, so npx uses what the install put there. */
function sh(dir: string, command: string) {
  return spawnSync('bash', ['-c', command], { cwd: dir, env: { ...env, npm_config_offline: 'true' }, encoding: 'utf8' });
}

beforeAll(async () => {
  for (const built of [`${binaryName}.${hostPlatform()}.node`, manifest.main]) {
    if (!existsSync(join(repo, built))) throw new Error(`${built} is missing: run \`npm run build\` first`);
  }
  work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-registry-test-')));
  env = consumerEnv();
  execFileSync(process.execPath, [join(repo, '.ci/package-platforms.mjs'), '--out', join(work, 'out')], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
  const pack = JSON.parse(readFileSync(join(work, 'out', 'pack.json'), 'utf8')) as {
    root: string;
    platforms: Record<string, { name: string; tarball: string }>;
  };
  rootTarball = pack.root;
  platformTarball = pack.platforms[hostPlatform()]!.tarball;
  registry = await startRegistry(join(work, 'registry'), [manifest.name, `${packageName}-*`]);
  // Platform packages first, as a release publishes them: the root names them as optional dependencies.
  for (const tarball of [...Object.values(pack.platforms).map((p) => p.tarball), pack.root]) {
    execFileSync('npm', ['publish', tarball, '--registry', registry.url, '--userconfig', registry.npmrc, '--ignore-scripts'], {
      cwd: work,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }
  consumer = project('consumer');
  await install(consumer);
  omitted = project('omit-optional');
  // npm picks optional dependencies for the platform it is told it installs for: FreeBSD has no binary.
  elsewhere = project('other-platform');
  await Promise.all([install(omitted, ['--omit=optional', '--prefer-offline']), install(elsewhere, ['--os=freebsd', '--cpu=x64', '--prefer-offline'])]);
  // Generous: under load, packing and three installs through an upstream proxy take minutes.
}, 600_000);

afterAll(async () => {
  await registry?.close();
  // Three installed projects and the registry's storage: slow to delete on a busy disk.
  if (work) rmSync(work, { recursive: true, force: true });
}, 180_000);

describe('installed from a registry', () => {
  it('resolves the platform package from optionalDependencies to the published tarball', () => {
    const lock = JSON.parse(readFileSync(join(consumer, 'package-lock.json'), 'utf8'));
    expect(lock.packages[`node_modules/${platformPackage}`]).toMatchObject({ version: manifest.version, optional: true, integrity: integrity(platformTarball) });
    expect(lock.packages['node_modules/shellring']).toMatchObject({ version: manifest.version, integrity: integrity(rootTarball) });
    expect(lock.packages['node_modules/shellring'].optionalDependencies).toEqual({ [platformPackage]: manifest.version });
  });

  it('runs `npx shellring run`', () => {
    const run = sh(consumer, "npx shellring run -- 'echo ok'");
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('ok\n');
    expect(run.status).toBe(0);
  });

  it("runs the README's library example", () => {
    const example = /```js\n([\s\S]*?)```/.exec(readme)![1]!;
    writeFileSync(join(consumer, 'example.mjs'), example);
    const run = spawnSync(process.execPath, ['example.mjs'], { cwd: consumer, env, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    // `ls | head -3` in the project: its first three entries, then the marker the example's comment promises.
    const entries = readdirSync(consumer).sort().slice(0, 3).join('\n');
    expect(run.stdout).toBe(`${entries}\n[exit code: 2]\n`);
  });

  it('serves `shellring mcp` to the official MCP client', async () => {
    const client = new Client({ name: 'registry-install', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: 'npx', args: ['shellring', 'mcp', '--cwd', consumer], cwd: consumer, env: env as Record<string, string> }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['bash', 'job_output', 'job_list', 'job_kill']);
      const result = await client.callTool({ name: 'bash', arguments: { command: 'echo ok; pwd', description: 'Say ok' } });
      expect((result.content as { text: string }[])[0]!.text).toBe(`ok\n${consumer}\n`);
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe('installed without a binary', () => {
  /** The loader's message: what it looked for, and the fix. */
  const missing = [
    `shellring: no native binding could be loaded for ${hostPlatform()}.`,
    `  tried the package ${platformPackage}: Cannot find module '${platformPackage}'`,
  ];

  it('names the platform package when optional dependencies were omitted', () => {
    expect(existsSync(join(omitted, 'node_modules', platformPackage))).toBe(false);
    const run = sh(omitted, "npx shellring run -- 'echo ok'");
    expect(run.stdout).toBe('');
    for (const line of missing) expect(run.stderr).toContain(line);
    expect(run.stderr).toContain(`Fix: install the package for this platform, ${platformPackage} (npm installs it with shellring as an optional dependency, unless optional dependencies are omitted)`);
    expect(run.status).not.toBe(0);
  });

  it('says so when installed for a platform no package was published for', () => {
    expect(existsSync(join(elsewhere, 'node_modules', 'shellring', 'package.json'))).toBe(true);
    const scope = join(elsewhere, 'node_modules', packageName.split('/')[0]!);
    expect(existsSync(scope) ? readdirSync(scope) : []).toEqual([]);
    const run = sh(elsewhere, "npx shellring run -- 'echo ok'");
    for (const line of missing) expect(run.stderr).toContain(line);
    expect(run.status).not.toBe(0);
  });
});
