// Packs the package as a release would, installs the tarballs into a fresh project without Rust, loads the native backend.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerEnv, hostPlatform } from './consumer.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
const { binaryName, packageName } = manifest.napi as { binaryName: string; packageName: string };

function tarEntries(tarball: string): string[] {
  return execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

function tarJson(tarball: string, entry: string): Record<string, any> {
  return JSON.parse(execFileSync('tar', ['-xzOf', tarball, entry], { encoding: 'utf8' }));
}

interface PackResult {
  version: string;
  root: string;
  optionalDependencies: Record<string, string>;
  platforms: Record<string, { name: string; tarball: string }>;
}

const platform = hostPlatform();
const platformPackage = `${packageName}-${platform}`;
const addonFile = `${binaryName}.${platform}.node`;
let work: string;
let pack: PackResult;
let consumer: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  for (const built of [addonFile, manifest.main]) {
    if (!existsSync(join(repo, built))) throw new Error(`${built} is missing: run \`npm run build\` first`);
  }
  work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-pack-test-')));
  execFileSync(process.execPath, [join(repo, '.ci/package-platforms.mjs'), '--out', join(work, 'out')], {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  pack = JSON.parse(readFileSync(join(work, 'out', 'pack.json'), 'utf8'));
  const platformTarball = pack.platforms[platform]?.tarball;
  if (platformTarball === undefined) throw new Error(`the pack produced no ${platformPackage} for this host`);

  consumer = join(work, 'consumer');
  env = consumerEnv();
  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  // Both packages come from local tarballs; only the root's own runtime dependencies may need the npm cache.
  execFileSync(
    'npm',
    ['install', '--prefer-offline', '--no-save', pack.root, platformTarball],
    { cwd: consumer, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
}, 180_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('packed packages', () => {
  it('keeps the committed manifest installable by npm ci', () => {
    // npm ci refuses a package.json whose dependencies the lockfile lacks; unpublished platform packages cannot
    // be locked, so they may only appear in the packed manifest.
    const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8'));
    for (const name of Object.keys(manifest.optionalDependencies ?? {})) {
      expect(lock.packages[`node_modules/${name}`], `${name} is not in package-lock.json`).toBeDefined();
    }
  });

  it('ships the compiled library and no binary in the root tarball', () => {
    const entries = tarEntries(pack.root);
    expect(entries).toContain('package/package.json');
    expect(entries).toContain(`package/${manifest.main.replace(/^\.\//, '')}`);
    expect(entries.filter((e) => e.endsWith('.node'))).toEqual([]);
    expect(entries.filter((e) => /^package\/(src|crates|test|bench|npm|target)\//.test(e))).toEqual([]);

    const packed = tarJson(pack.root, 'package/package.json');
    expect(packed.version).toBe(manifest.version);
    const expected = Object.fromEntries(Object.values(pack.platforms).map((p) => [p.name, manifest.version]));
    expect(packed.optionalDependencies).toEqual(expected);
    expect(packed.optionalDependencies[platformPackage]).toBe(manifest.version);
  });

  it("ships the host's addon in its platform tarball", () => {
    const { tarball } = pack.platforms[platform]!;
    expect(tarEntries(tarball)).toContain(`package/${addonFile}`);
    // The executor looks for the runner beside the addon it loaded, so the platform package must carry it.
    const runner = execFileSync('tar', ['-tvzf', tarball, 'package/shellring-runner'], { encoding: 'utf8' });
    expect(runner).toMatch(/^-rwx/);
    const packed = tarJson(tarball, 'package/package.json');
    expect(packed).toMatchObject({ name: platformPackage, version: manifest.version, main: addonFile });
    expect(packed.files).toEqual([addonFile, 'shellring-runner']);
    expect(packed.os).toEqual([process.platform]);
    expect(packed.cpu).toEqual([process.arch]);
  });

  it('matches the committed npm/ directories with what napi create-npm-dirs generates', () => {
    const scratch = join(work, 'npm-dirs');
    mkdirSync(scratch);
    writeFileSync(join(scratch, 'package.json'), JSON.stringify(manifest));
    execFileSync(join(repo, 'node_modules/.bin/napi'), ['create-npm-dirs', '--npm-dir', 'npm'], {
      cwd: scratch,
      stdio: 'ignore',
    });
    const dirs = readdirSync(join(scratch, 'npm')).sort();
    expect(readdirSync(join(repo, 'npm')).sort()).toEqual(dirs);
    for (const dir of dirs) {
      for (const file of readdirSync(join(scratch, 'npm', dir))) {
        const generated = readFileSync(join(scratch, 'npm', dir, file), 'utf8');
        expect(readFileSync(join(repo, 'npm', dir, file), 'utf8'), `npm/${dir}/${file}: run \`npm run npm-dirs\``).toBe(generated);
      }
    }
  });

  it('installs without Rust and loads the native backend from node_modules', () => {
    const which = spawnSync('sh', ['-c', 'command -v cargo; command -v rustc'], { env, encoding: 'utf8' });
    expect(which.stdout).toBe('');
    expect(which.status).not.toBe(0);

    const script = `
      import { readFileSync } from 'node:fs';
      import { createRequire } from 'node:module';
      import { LocalExecutor } from 'shellring';
      // The executor owns its capture backend: the native one, loaded from the platform package.
      const executor = new LocalExecutor({ threads: 1 });
      const backend = executor.capture;
      const id = backend.create({ stdoutCap: 64 });
      backend.write(id, 0, Buffer.from('packed and installed\\n'));
      backend.finish(id);
      const text = backend.tail(id, 0).toString('utf8');
      const total = backend.info(id, 0).total;
      backend.free(id);
      const resolved = createRequire(import.meta.resolve('shellring')).resolve(${JSON.stringify(platformPackage)});
      const loaded = [...new Set(readFileSync('/proc/self/maps', 'utf8').split('\\n')
        .filter((line) => line.endsWith(${JSON.stringify(`/${addonFile}`)}))
        .map((line) => line.slice(line.indexOf('/'))))];
      console.log(JSON.stringify({ kind: backend.kind, text, total, resolved, loaded }));
      await executor.close();
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: consumer, env, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    console.log(`native addon loaded from ${result.loaded.join(', ')}`);

    const installed = join(consumer, 'node_modules', platformPackage, addonFile);
    expect(result).toEqual({
      kind: 'native',
      text: 'packed and installed\n',
      total: 21,
      resolved: installed,
      loaded: [installed],
    });
  });

  it('runs the command line of docs/cli.md, `npx shellring run`, through the installed bin', () => {
    const page = readFileSync(join(repo, 'docs/cli.md'), 'utf8');
    const command = /```sh\n(npx shellring run [^\n]*)\n```/.exec(page)![1]!;
    const shown = /prints what a model would see:\n\n```text\n([\s\S]*?)```/.exec(page)![1]!;
    // Offline: npx must find the bin the install put in node_modules/.bin, never fetch a package of that name.
    const run = spawnSync('bash', ['-c', command], { cwd: consumer, env: { ...env, npm_config_offline: 'true' }, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(`${run.stdout}\n`).toBe(shown);
  });

  it('runs a command through the installed runner and supervisor worker', () => {
    const script = `
      import { LocalExecutor } from 'shellring';
      const executor = new LocalExecutor({ threads: 1 });
      try {
        const result = await executor.run(executor.resolve({ command: 'echo out; echo err >&2; exit 3' }));
        console.log(JSON.stringify({ exitCode: result.exitCode, stdout: result.stdout.text, stderr: result.stderr.text }));
      } finally {
        await executor.close();
      }
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: consumer, env, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ exitCode: 3, stdout: 'out\n', stderr: 'err\n' });
  });
});
