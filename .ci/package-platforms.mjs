#!/usr/bin/env node
// Packs the root package and its per-platform binding packages into tarballs, as a release would, without publishing.
//
// Usage: node .ci/package-platforms.mjs [--out DIR] [--artifacts DIR] [--all-targets]
//   --artifacts DIR  where the built `shellring.<platform>.node` files are. Default: the package root, where
//                    `npm run build:native` writes the host's. A release gathers every target's into one directory.
//                    The runner executable ships beside each addon when the directory has it: for any target as
//                    `shellring-runner.<platform>`, and for this host's target also as plain `shellring-runner`
//                    (where the local build puts it).
//   --out DIR        staging tree and tarballs (default: a new temp directory). DIR/pack.json lists the tarballs.
//   --all-targets    fail unless every target of `napi.targets` has its binary (what a release wants).
//
// Why optionalDependencies are not in the committed package.json:
// `napi pre-publish` writes them (every platform package at the root version). Until a release publishes those
// packages, no registry knows them. `npm install` tolerates an optional dependency that 404s, but `npm ci` does
// not get that far: it refuses a package.json whose dependencies the lockfile lacks ("Missing: ... from lock
// file"), and the lockfile cannot record a package that cannot be resolved. So the napi steps run on a staged
// copy of the package: the tarball carries optionalDependencies, the working tree stays as committed, and a
// fresh clone's `npm ci` keeps working.
//
// Why only the built targets by default: pre-publish refuses a platform package whose binary is missing, and a
// root package must not name platform packages that this pack does not produce. A local build has the host's
// binary only, so a local pack lists only the host's platform package in optionalDependencies.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseTriple } from '@napi-rs/cli';

/** Executables a platform package ships beside its addon (the loader looks for them next to the .node file). */
const HELPER_EXECUTABLES = ['shellring-runner'];

/** The napi platform name of this process, e.g. linux-x64-gnu: a plain helper in the artifacts dir was built for it. */
function hostPlatform() {
  if (process.platform !== 'linux') return `${process.platform}-${process.arch}`;
  const musl = process.report.getReport().header.glibcVersionRuntime === undefined;
  return `linux-${process.arch}-${musl ? 'musl' : 'gnu'}`;
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const napi = join(root, 'node_modules', '.bin', 'napi');

const { values: args } = parseArgs({
  options: {
    out: { type: 'string' },
    artifacts: { type: 'string' },
    'all-targets': { type: 'boolean', default: false },
  },
});

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));
const run = (file, argv, cwd) => execFileSync(file, argv, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
// napi's progress goes to stderr so that stdout carries only this script's summary.
const napiRun = (argv, cwd) => execFileSync(napi, argv, { cwd, stdio: ['ignore', 2, 'inherit'] });
// Lifecycle scripts stay off: the staged copy must be packed as it is, never rebuilt (the consumer has no Rust).
const npmPack = (cwd, extra) => JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', ...extra], cwd));

const manifest = readJson(join(root, 'package.json'));
const { binaryName, packageName, targets: triples } = manifest.napi;
const artifactsDir = resolve(args.artifacts ?? root);
const out = resolve(args.out ?? mkdtempSync(join(tmpdir(), 'shellring-pack-')));
const stage = join(out, 'package');
const tarballs = join(out, 'tarballs');
if (existsSync(stage) || existsSync(tarballs)) throw new Error(`${out} already holds a pack; choose a new --out`);

const targets = triples.map((triple) => {
  const abi = parseTriple(triple).platformArchABI;
  return { triple, abi, binary: join(artifactsDir, `${binaryName}.${abi}.node`) };
});
const built = targets.filter((t) => existsSync(t.binary));
const missing = targets.filter((t) => !existsSync(t.binary));
if (built.length === 0) {
  throw new Error(`no ${binaryName}.<platform>.node in ${artifactsDir}; run \`npm run build:native\` first`);
}
if (args['all-targets'] && missing.length > 0) {
  throw new Error(`missing binaries for ${missing.map((t) => `${t.triple} (${t.binary})`).join(', ')}`);
}

// Stage exactly what npm would pack from the working tree, so `files` stays the one list of what ships.
const packlist = npmPack(root, ['--dry-run'])[0].files.map((f) => f.path);
if (!packlist.includes(manifest.main.replace(/^\.\//, ''))) {
  throw new Error(`${manifest.main} is not built; run \`npm run build\` first`);
}
mkdirSync(stage, { recursive: true });
mkdirSync(tarballs, { recursive: true });
for (const file of packlist) {
  mkdirSync(dirname(join(stage, file)), { recursive: true });
  copyFileSync(join(root, file), join(stage, file));
}

// A separate napi config narrows the targets to the built ones; the packed package.json keeps all of them.
const napiScope = [];
if (missing.length > 0) {
  writeFileSync(join(stage, 'napi.pack.json'), JSON.stringify({ targets: built.map((t) => t.triple) }, null, 2));
  napiScope.push('--config-path', 'napi.pack.json');
}
// `napi artifacts` searches its directory recursively, so it gets a directory holding only these binaries.
mkdirSync(join(stage, 'artifacts'));
for (const t of built) copyFileSync(t.binary, join(stage, 'artifacts', `${binaryName}.${t.abi}.node`));

napiRun(['create-npm-dirs', ...napiScope, '--npm-dir', 'npm'], stage);
napiRun(['artifacts', ...napiScope, '--output-dir', 'artifacts', '--npm-dir', 'npm'], stage);

for (const t of built) {
  const pkgDir = join(stage, 'npm', t.abi);
  const pkg = readJson(join(pkgDir, 'package.json'));
  for (const name of HELPER_EXECUTABLES) {
    const sources = [join(artifactsDir, `${name}.${t.abi}`)];
    if (t.abi === hostPlatform()) sources.push(join(artifactsDir, name));
    const source = sources.find((file) => existsSync(file));
    if (source === undefined) {
      t.lacks = [...(t.lacks ?? []), name];
      continue;
    }
    copyFileSync(source, join(pkgDir, name));
    chmodSync(join(pkgDir, name), 0o755);
    pkg.files.push(name);
  }
  writeFileSync(join(pkgDir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
}

// No GitHub release and no `npm publish` of the platform packages: pre-publish only validates the platform
// packages, syncs their versions and writes optionalDependencies into the staged package.json.
napiRun(['pre-publish', ...napiScope, '--npm-dir', 'npm', '--no-gh-release', '--skip-optional-publish'], stage);

// The published manifest holds what an install reads: the repository's scripts, development dependencies and napi
// build settings stay behind.
const packed = readJson(join(stage, 'package.json'));
for (const field of ['scripts', 'devDependencies', 'napi']) delete packed[field];
writeFileSync(join(stage, 'package.json'), `${JSON.stringify(packed, null, 2)}\n`);
const result = {
  version: packed.version,
  root: join(tarballs, npmPack(stage, ['--pack-destination', tarballs])[0].filename),
  optionalDependencies: packed.optionalDependencies,
  platforms: {},
  skipped: missing.map((t) => t.abi),
};
for (const t of built) {
  const [info] = npmPack(join(stage, 'npm', t.abi), ['--pack-destination', tarballs]);
  result.platforms[t.abi] = { name: info.name, tarball: join(tarballs, info.filename), lacks: t.lacks ?? [] };
}
writeFileSync(join(out, 'pack.json'), `${JSON.stringify(result, null, 2)}\n`);

process.stdout.write(`packed ${manifest.name}@${result.version} -> ${result.root}\n`);
for (const p of Object.values(result.platforms)) {
  process.stdout.write(`packed ${p.name} -> ${p.tarball}${p.lacks.length ? ` (without ${p.lacks.join(', ')})` : ''}\n`);
}
if (missing.length > 0) process.stdout.write(`not built here, left out: ${result.skipped.join(', ')}\n`);
process.stdout.write(`manifest: ${join(out, 'pack.json')}\n`);
