// Publishes the packed packages to a real registry (Verdaccio) and installs `shellring` from it as a user would: the
// library alone (its size), ES module, CommonJS and TypeScript consumers, without optional dependencies, for a
// platform with no binary, with the MCP face added as the CLI's message says, and README's npx configuration.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
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
/** A library-only install stays under this many bytes of node_modules, the platform package aside. */
const LEAN_BYTES = 15_000_000;

let work: string;
let registry: Registry;
let env: NodeJS.ProcessEnv;
let rootTarball: string;
/** Installed as a user would; with optional dependencies omitted; as if for a platform with no binary. */
let consumer: string;
let omitted: string;
let elsewhere: string;
let platformTarball: string;
/** The consumer's node_modules right after `npm install shellring`: bytes outside the platform package, and in it. */
let installed: { lean: number; platform: number; packages: string[] };

/** The integrity string npm records for a tarball. */
function integrity(tarball: string): string {
  return `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
}

/** An empty project directory, as `npm init -y` leaves it (CommonJS). */
function project(name: string): string {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true, type: 'commonjs' }));
  return dir;
}

/** `npm install <packages>` from the test registry, with `extra` flags; the user's npmrc holds no publish token. */
async function install(dir: string, packages: string[], extra: string[] = []): Promise<void> {
  await promisify(execFile)('npm', ['install', ...packages, '--registry', registry.url, ...extra], { cwd: dir, env });
}

/** Runs `command` in bash in `dir` without reaching any registry, so npx uses what the install put there. */
function sh(dir: string, command: string) {
  return spawnSync('bash', ['-c', command], { cwd: dir, env: { ...env, npm_config_offline: 'true' }, encoding: 'utf8' });
}

/** Runs a script file with this Node, in `dir`. */
function node(dir: string, file: string, source: string) {
  writeFileSync(join(dir, file), source);
  const run = spawnSync(process.execPath, [file], { cwd: dir, env, encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Bytes of the regular files under `dir` (symlinks not followed), and the packages found at its top. */
function footprint(dir: string): number {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) bytes += footprint(path);
    else if (entry.isFile()) bytes += lstatSync(path).size;
  }
  return bytes;
}

function measure(dir: string): typeof installed {
  const modules = join(dir, 'node_modules');
  const platform = footprint(join(modules, platformPackage));
  const packages = readdirSync(modules).flatMap((name) => (name.startsWith('@') ? readdirSync(join(modules, name)).map((sub) => `${name}/${sub}`) : [name]));
  return { lean: footprint(modules) - platform, platform, packages: packages.filter((name) => !name.startsWith('.')).sort() };
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

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
  await install(consumer, ['shellring']);
  installed = measure(consumer);
  console.log(`npm install shellring: ${mb(installed.lean)} of node_modules besides ${platformPackage} (${mb(installed.platform)}): ${installed.packages.join(' ')}`);
  omitted = project('omit-optional');
  // npm picks optional dependencies for the platform it is told it installs for: FreeBSD has no binary.
  elsewhere = project('other-platform');
  // After the first install, `--prefer-offline` lets npm reuse the metadata it fetched from this registry rather
  // than revalidate every package through Verdaccio's upstream proxy.
  await Promise.all([
    install(omitted, ['shellring'], ['--omit=optional', '--prefer-offline']),
    install(elsewhere, ['shellring'], ['--os=freebsd', '--cpu=x64', '--prefer-offline']),
  ]);
  // Generous: under load, packing and three installs through an upstream proxy take minutes.
}, 600_000);

afterAll(async () => {
  await registry?.close();
  // Installed projects and the registry's storage: slow to delete on a busy disk.
  if (work) rmSync(work, { recursive: true, force: true });
}, 180_000);

describe('installed from a registry', () => {
  it('resolves the platform package from optionalDependencies to the published tarball', () => {
    const lock = JSON.parse(readFileSync(join(consumer, 'package-lock.json'), 'utf8'));
    expect(lock.packages[`node_modules/${platformPackage}`]).toMatchObject({ version: manifest.version, optional: true, integrity: integrity(platformTarball) });
    expect(lock.packages['node_modules/shellring']).toMatchObject({ version: manifest.version, integrity: integrity(rootTarball) });
    expect(lock.packages['node_modules/shellring'].optionalDependencies).toEqual({ [platformPackage]: manifest.version });
  });

  it('publishes a manifest without the repository scripts, development dependencies or build settings', () => {
    const published = JSON.parse(readFileSync(join(consumer, 'node_modules/shellring/package.json'), 'utf8'));
    for (const field of ['scripts', 'devDependencies', 'napi']) expect(published[field], field).toBeUndefined();
    expect(published.peerDependencies).toEqual(manifest.peerDependencies);
    expect(published.engines).toEqual(manifest.engines);
  });

  it(`installs the library in under ${mb(LEAN_BYTES)} of node_modules besides the platform package, with no face's packages`, () => {
    expect(installed.lean).toBeLessThan(LEAN_BYTES);
    for (const peer of Object.keys(manifest.peerDependencies)) expect(installed.packages, peer).not.toContain(peer);
    expect(installed.packages).toContain(platformPackage);
  });

  it('runs `npx shellring run`', () => {
    const run = sh(consumer, "npx shellring run -- 'echo ok'");
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('ok\n');
    expect(run.status).toBe(0);
  });

  it("runs the README's library example, saved as the .mjs file it names", () => {
    const example = /saved as `example\.mjs`[^\n]*\n(?:[^\n]+\n)*?\n```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example, 'README names the module type of its library example').toBeDefined();
    const run = node(consumer, 'example.mjs', example!);
    expect(run.status, run.stderr).toBe(0);
    // `ls | head -3` in the project: its first three entries, then the marker the example's comment promises.
    const entries = readdirSync(consumer).sort().slice(0, 3).join('\n');
    expect(run.stdout).toBe(`${entries}\n[exit code: 2]\n`);
  });

  it('runs a CommonJS consumer: require() loads the package on this Node line', () => {
    const run = node(
      consumer,
      'consumer.js',
      `const { createRuntime } = require('shellring');
      (async () => {
        const runtime = await createRuntime();
        const session = runtime.session({ id: 'cjs', cwd: __dirname });
        const result = await session.callTool('bash', { command: 'echo from commonjs; exit 4', description: 'Echo' });
        console.log(JSON.stringify({ text: result.content[0].text, exitCode: result.structuredContent.exitCode }));
        await runtime.close();
      })();`,
    );
    expect(run).toEqual({ status: 0, stdout: `${JSON.stringify({ text: 'from commonjs\n[exit code: 4]', exitCode: 4 })}\n`, stderr: '' });
  });

  it('type-checks a TypeScript consumer with tsc, and runs what it emits', async () => {
    const { typescript, '@types/node': types } = manifest.devDependencies as Record<string, string>;
    // The consumer's own tools, after the size was measured.
    await install(consumer, [`typescript@${typescript}`, `@types/node@${types}`], ['--save-dev', '--prefer-offline']);
    const app = join(consumer, 'ts');
    mkdirSync(app);
    const tsconfig = { compilerOptions: { module: 'nodenext', target: 'es2022', strict: true, skipLibCheck: false, types: ['node'], outDir: 'out' } };
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(tsconfig));
    const body = `
      const runtime = await createRuntime();
      const session = runtime.session({ id: 'ts', cwd: process.cwd() });
      const result = await session.callTool('bash', { command: 'exit 5', description: 'Fail' });
      // @ts-expect-error a misspelt argument
      void session.callTool('bash', { command: 'true', descripton: 'Misspelt' });
      const exitCode: number | null = !result.isError && result.structuredContent.kind === 'foreground' ? result.structuredContent.exitCode : null;
      console.log(exitCode);
      await runtime.close();`;
    writeFileSync(join(app, 'main.mts'), `import { createRuntime } from 'shellring';\n${body}\n`);
    writeFileSync(join(app, 'main.cts'), `import { createRuntime } from 'shellring';\nvoid (async () => {${body}\n})();\n`);
    const tsc = sh(app, 'npx tsc -p .');
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
    for (const file of ['out/main.mjs', 'out/main.cjs']) {
      const run = spawnSync(process.execPath, [file], { cwd: app, env, encoding: 'utf8' });
      expect({ file, status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({ file, status: 0, stdout: '5\n', stderr: '' });
    }
  }, 300_000);

  it("adds the MCP face with the install the CLI names, then serves `shellring mcp` to the official MCP client", async () => {
    const lean = sh(consumer, 'npx shellring mcp');
    expect(lean.status).toBe(1);
    const command = /Fix: run `(npm install [^`]+)` beside shellring/.exec(lean.stderr)?.[1];
    expect(command, lean.stderr).toBe(`npm install ${Object.keys(manifest.peerDependencies).filter((name) => name.startsWith('@modelcontextprotocol/')).map((name) => `${name}@${manifest.peerDependencies[name]}`).join(' ')}`);
    await install(consumer, command!.split(' ').slice(2), ['--prefer-offline']);
    const client = new Client({ name: 'registry-install', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: 'npx', args: ['shellring', 'mcp', '--cwd', consumer], cwd: consumer, env: env as Record<string, string> }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['bash', 'job_output', 'job_list', 'job_kill', 'job_input']);
      const result = await client.callTool({ name: 'bash', arguments: { command: 'echo ok; pwd', description: 'Say ok' } });
      expect((result.content as { text: string }[])[0]!.text).toBe(`ok\n${consumer}\n`);
    } finally {
      await client.close();
    }
  }, 300_000);

  it("serves MCP with README's npx configuration, fetching every package it names", async () => {
    // The configuration for after a release: the JSON block that starts the server with npx.
    const configs = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as { mcpServers: { shellring: { command?: string; args: string[] } } });
    const { command, args } = configs.map((config) => config.mcpServers.shellring).find((server) => server.command === 'npx')! as { command: string; args: string[] };
    const project = join(work, 'npx-project');
    mkdirSync(project);
    const serverArgs = args.map((arg, i) => (args[i - 1] === '--cwd' ? project : arg));
    // A cache of its own: npx reuses what an earlier run cached under this version, which must not be an older build.
    const npxEnv = { ...env, npm_config_registry: registry.url, npm_config_cache: join(work, 'npx-cache') } as Record<string, string>;
    const client = new Client({ name: 'registry-npx', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command, args: serverArgs, cwd: '/', env: npxEnv }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['bash', 'job_output', 'job_list', 'job_kill', 'job_input']);
      const result = await client.callTool({ name: 'bash', arguments: { command: 'pwd', description: 'Where' } });
      expect((result.content as { text: string }[])[0]!.text).toBe(`${project}\n`);
    } finally {
      await client.close();
    }
  }, 300_000);
});

describe('installed without a binary', () => {
  /** The loader's paragraph: the platform, the package with its version, and the fix. */
  const paragraph =
    `shellring: the native binding for ${hostPlatform()} is not installed: it is the package ${platformPackage}, which npm installs with shellring as an optional dependency unless optional dependencies are omitted (--omit=optional). ` +
    `Fix: run \`npm install ${platformPackage}@${manifest.version}\` in your project, or install shellring again without --omit=optional.`;

  /** Imports and requires the root, then calls what needs the binding; prints what happened. */
  const probe = `
    import { createRequire } from 'node:module';
    const root = await import('shellring');
    const required = createRequire(import.meta.url)('shellring');
    try {
      await root.createRuntime();
      console.log('created');
    } catch (error) {
      console.log(JSON.stringify({ imported: typeof root.createRuntime, required: typeof required.createRuntime, code: error.code, message: error.message }));
    }`;

  it.each([
    ['optional dependencies were omitted', () => omitted],
    ['installed for a platform no package was published for', () => elsewhere],
  ])('when %s: the root imports, the first call fails with one paragraph, and the CLI prints it', (_, dir) => {
    expect(existsSync(join(dir(), 'node_modules', platformPackage))).toBe(false);
    expect(existsSync(join(dir(), 'node_modules', 'shellring', 'package.json'))).toBe(true);
    const run = node(dir(), 'probe.mjs', probe);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ imported: 'function', required: 'function', code: 'SHELLRING_BINDING_MISSING', message: paragraph });
    expect(sh(dir(), "npx shellring run -- 'echo ok'")).toMatchObject({ status: 1, stdout: '', stderr: `${paragraph}\n` });
  });
});
