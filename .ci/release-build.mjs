#!/usr/bin/env node
// Builds the release artefacts, the addon and shellring-runner for each target, checks what each claims to be, then runs them.
//
// Usage: node .ci/release-build.mjs [--target TRIPLE]... [--artifacts DIR] [--no-run]
//   --target     a triple of `napi.targets` (repeatable). Default: every target of this host's OS.
//   --artifacts  where `shellring.<platform>.node` and `shellring-runner.<platform>` go (default: artifacts/),
//                the directory `npm run package:platforms -- --artifacts DIR` packs from.
//   --no-run     build and check only; by default .ci/release-run.mjs then runs what this host can run.
//
// Toolchain: Linux targets, the host's own included, are built with cargo-zigbuild, which links through zig's
// bundled C toolchain: one install (two PyPI wheels, pinned in .ci/zig.mjs) cross-links every Linux target, gnu and musl,
// x64 and arm64, with no sysroot or Debian cross packages, and links gnu targets against the symbols of a chosen
// glibc version (the `.2.17` suffix), so the floor does not depend on the build host's glibc. macOS targets build
// with plain cargo on a macOS host, whose Xcode linker covers both Apple architectures.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { binaryFacts } from './binary-facts.mjs';
import { checkFacts, describeTarget, GLIBC_FLOOR } from './release-targets.mjs';
import { zigbuildPath } from './zig.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const { values: args } = parseArgs({
  options: {
    target: { type: 'string', multiple: true },
    artifacts: { type: 'string', default: join(root, 'artifacts') },
    'no-run': { type: 'boolean', default: false },
  },
});

const hostOs = process.platform;
const triples = args.target ?? manifest.napi.targets.filter((t) => describeTarget(t).platform === hostOs);
for (const t of triples) {
  if (!manifest.napi.targets.includes(t)) throw new Error(`${t} is not one of napi.targets: ${manifest.napi.targets.join(', ')}`);
}
const targets = triples.map(describeTarget);
const artifacts = resolve(args.artifacts);
mkdirSync(artifacts, { recursive: true });

const run = (file, argv, env = {}) => execFileSync(file, argv, { cwd: root, stdio: ['ignore', 2, 'inherit'], env: { ...process.env, ...env } });
const log = (text) => process.stderr.write(`== ${text}\n`);

log(`rustup target add ${triples.join(' ')}`);
run('rustup', ['target', 'add', ...triples]);
const zigPath = targets.some((t) => t.platform === 'linux') ? zigbuildPath(root) : undefined;

/** Builds one package for `target` and returns the file cargo wrote. */
function build(target, pkg, file) {
  const linux = target.platform === 'linux';
  // The musl addon must link libc dynamically (Node's own musl loads it); the runner stays static. Different
  // RUSTFLAGS get their own target directory, so neither build invalidates the other's cache.
  const dynamicMusl = target.libc === 'musl' && pkg === 'shellring-node';
  const targetDir = join(root, 'target', dynamicMusl ? 'release-build-dylib' : 'release-build');
  const cargoTarget = target.libc === 'gnu' ? `${target.triple}.${GLIBC_FLOOR}` : target.triple;
  const argv = [linux ? 'zigbuild' : 'build', '--release', '--locked', '-p', pkg, '--target', cargoTarget, '--target-dir', targetDir];
  log(`cargo ${argv.join(' ')}${dynamicMusl ? ' (RUSTFLAGS=-C target-feature=-crt-static)' : ''}`);
  run('cargo', argv, {
    ...(linux ? { PATH: zigPath } : {}),
    ...(dynamicMusl ? { RUSTFLAGS: '-C target-feature=-crt-static' } : {}),
  });
  return join(targetDir, target.triple, 'release', file);
}

const rows = [];
let failed = false;
for (const target of targets) {
  const library = target.platform === 'darwin' ? 'libshellring_node.dylib' : 'libshellring_node.so';
  const outputs = [{ kind: 'addon', from: build(target, 'shellring-node', library), to: `${manifest.napi.binaryName}.${target.abi}.node` }];
  // The runner is Linux-only (subreaper, Landlock, namespaces): a macOS platform package carries the addon alone.
  if (target.platform === 'linux') {
    outputs.push({ kind: 'runner', from: build(target, 'shellring-runner', 'shellring-runner'), to: `shellring-runner.${target.abi}` });
  }
  for (const { kind, from, to } of outputs) {
    copyFileSync(from, join(artifacts, to));
    const facts = binaryFacts(join(artifacts, to));
    const failures = checkFacts(target, kind, facts);
    failed ||= failures.length > 0;
    const linking = facts.interpreter ? `loader ${facts.interpreter}` : facts.needed.length ? `needs ${facts.needed.join(' ')}` : 'static';
    const glibc = target.libc === 'gnu' ? `glibc ${facts.maxGlibc} <= ${GLIBC_FLOOR}` : target.libc === 'musl' ? 'no glibc' : '';
    rows.push([target.abi, to, `${facts.format} ${facts.machine}`, linking, glibc, failures.length ? `FAIL: ${failures.join('; ')}` : 'ok']);
  }
}

const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
process.stdout.write(`release artefacts in ${artifacts} (glibc floor ${GLIBC_FLOOR}):\n`);
for (const row of rows) process.stdout.write(`  ${row.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd()}\n`);
if (failed) {
  process.stdout.write('some artefacts are not what their target needs\n');
  process.exit(1);
}
if (!args['no-run']) {
  const runArgs = [join(root, '.ci', 'release-run.mjs'), '--artifacts', artifacts, ...targets.flatMap((t) => ['--target', t.triple])];
  const result = spawnSync(process.execPath, runArgs, { cwd: root, stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
