#!/usr/bin/env node
// Every release target compiles, in every CI run: clippy (-D warnings, every target kind) for each triple of
// `napi.targets` but the host's own (.ci/run checks that one), through cargo-zigbuild, whose zig compiles the C the
// crates build (tree-sitter) for each of them. The Linux targets check the whole workspace; the macOS ones the crates
// that build there: shellring-runner is Linux only (subreaper, Landlock, namespaces), and shellring-core and the
// binding still call Linux-only functions (core's capture threads take their thread id with SYS_gettid; the binding's
// host_process uses prctl), so a macOS build of the addon does not compile yet.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeTarget } from './release-targets.mjs';
import { zigbuildPath } from './zig.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const host = `${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-unknown-linux-gnu`;
const triples = manifest.napi.targets.filter((triple) => triple !== host);
/** The crates that compile for macOS (see above). */
const DARWIN_CRATES = ['shellring-wire', 'shellring-policy', 'shellring-hostpaths'];

const run = (file, argv, env = {}) => execFileSync(file, argv, { cwd: root, stdio: ['ignore', 2, 'inherit'], env: { ...process.env, ...env } });
process.stderr.write(`== rustup target add ${triples.join(' ')}\n`);
run('rustup', ['target', 'add', ...triples]);
const PATH = zigbuildPath(root);
for (const triple of triples) {
  const crates = describeTarget(triple).platform === 'darwin' ? DARWIN_CRATES.flatMap((name) => ['-p', name]) : ['--workspace'];
  const argv = ['clippy', ...crates, '--all-targets', '--locked', '--target', triple, '--', '-D', 'warnings'];
  // As the release builds it: a static musl C runtime allows no cdylib, so the addon links musl dynamically.
  const rustflags = describeTarget(triple).libc === 'musl' ? { RUSTFLAGS: '-C target-feature=-crt-static' } : {};
  process.stderr.write(`== cargo-zigbuild ${argv.join(' ')}\n`);
  run('cargo-zigbuild', argv, { PATH, ...rustflags });
}
