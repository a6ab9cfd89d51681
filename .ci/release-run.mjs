#!/usr/bin/env node
// Runs the release artefacts this host can run: each runner through its fd-3 status protocol, each addon through one bash tool call.
//
// Usage: node .ci/release-run.mjs [--artifacts DIR] [--target TRIPLE]...   (needs `npm run build:ts` for dist/)
//
// How each target runs on an x86_64 Linux host: x64 binaries natively (the musl runner is static, so it runs on a
// glibc host too); arm64 binaries under qemu-user against Debian's arm64 libc and Node (.ci/arm64-root.sh), the
// runner through a small script that starts it under qemu, since without binfmt_misc the kernel cannot exec an
// arm64 file itself. A target with no Node here (musl, on a glibc host) has its runner run and its addon left
// unrun, and says so. On an arm64 or macOS host the host's own targets run natively.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { describeTarget } from './release-targets.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    artifacts: { type: 'string', default: join(root, 'artifacts') },
    target: { type: 'string', multiple: true },
  },
});
const artifacts = resolve(args.artifacts);
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const targets = (args.target ?? manifest.napi.targets).map(describeTarget);
const hostMachine = { x64: 'x86_64', arm64: 'aarch64' }[process.arch];
const hostMusl = process.platform === 'linux' && process.report.getReport().header.glibcVersionRuntime === undefined;
const scratch = mkdtempSync(join(tmpdir(), 'shellring-release-run-'));
const arm64Root = join(root, 'target', 'release-tools', 'arm64-root');
const log = (text) => process.stdout.write(`${text}\n`);

/** How to start a program of `target` here: a prefix for its argv, or null when this host cannot run it. */
function launcher(target) {
  if (target.platform !== process.platform) return null;
  if (target.machine === hostMachine) return [];
  if (target.platform === 'linux' && target.machine === 'aarch64' && hostMachine === 'x86_64') {
    execFileSync(join(root, '.ci', 'arm64-root.sh'), [arm64Root], { stdio: ['ignore', 2, 'inherit'] });
    return ['qemu-aarch64', '-L', arm64Root];
  }
  return null;
}

/** Runs `argv` with a socket on fd 3 carrying the request `frame` first, as the supervisor worker does; resolves
 * with its output and status lines. */
function withStatusSocket(argv, frame) {
  return new Promise((resolvePromise, reject) => {
    // libuv makes an extra 'pipe' stdio entry a socketpair: the runner reads the supervisor's lifeline from it.
    const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
    const chunks = { stdout: [], stderr: [], status: [] };
    child.stdout.on('data', (b) => chunks.stdout.push(b));
    child.stderr.on('data', (b) => chunks.stderr.push(b));
    child.stdio[3].on('data', (b) => chunks.status.push(b));
    child.stdio[3].write(frame);
    child.on('error', reject);
    child.on('close', (code) => {
      const text = (list) => Buffer.concat(list).toString('utf8');
      resolvePromise({ code, stdout: text(chunks.stdout), stderr: text(chunks.stderr), status: text(chunks.status) });
    });
  });
}

async function runRunner(target, prefix) {
  const runner = join(artifacts, `shellring-runner.${target.abi}`);
  const command = 'echo "out from $(uname -m) bash"; echo err >&2; exit 7';
  const argv = [...prefix, runner, '--run'];
  // The request as the host encodes it: the runner's own encoding, unconfined, in the scratch directory.
  const { encode } = await import(join(root, 'dist', 'src', 'executor', 'wire', 'request.js'));
  const { UNCONFINED } = await import(join(root, 'dist', 'src', 'executor', 'wire', 'plan.js'));
  const frame = encode({ cwd: scratch, plan: UNCONFINED, command, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  const result = await withStatusSocket(argv, frame);
  log(`  ran: ${argv.join(' ')} with the request for '${command}'   (fd 3: socketpair)`);
  log(`  fd 3: ${JSON.stringify(result.status)}  stdout: ${JSON.stringify(result.stdout)}  stderr: ${JSON.stringify(result.stderr)}`);
  const ok = /^started \d+ none\nexit 7\n$/.test(result.status) && /^out from \S+ bash\n$/.test(result.stdout) && result.stderr === 'err\n';
  if (!ok) throw new Error(`${target.abi} runner: unexpected result (runner exit ${result.code})`);
}

async function runAddon(target, prefix) {
  const addon = join(artifacts, `${manifest.napi.binaryName}.${target.abi}.node`);
  let runnerPath = join(artifacts, `shellring-runner.${target.abi}`);
  if (prefix.length > 0) {
    // The executor execs the runner path; a script lets the host's kernel start it under the same emulator.
    runnerPath = join(scratch, `runner-${target.abi}`);
    writeFileSync(runnerPath, `#!/bin/sh\nexec ${prefix.join(' ')} '${join(artifacts, `shellring-runner.${target.abi}`)}' "$@"\n`);
    chmodSync(runnerPath, 0o755);
  }
  const node = prefix.length > 0 ? join(arm64Root, 'usr', 'bin', 'node') : process.execPath;
  const script = join(scratch, 'call.mjs');
  writeFileSync(script, `
    import { createRuntime } from ${JSON.stringify(join(root, 'dist', 'src', 'index.js'))};
    const runtime = await createRuntime({ sandbox: { mode: 'danger-full-access' }, executor: { runnerPath: ${JSON.stringify(runnerPath)} } });
    try {
      const session = runtime.session({ id: 'release-run', cwd: ${JSON.stringify(scratch)} });
      const result = await session.callTool('bash', { command: 'echo "hello from $(uname -m) bash"; exit 3', description: 'Smoke test' });
      console.log(JSON.stringify({ node: process.version, arch: process.arch, text: result.content[0].text }));
    } finally {
      await runtime.close();
    }
  `);
  const argv = [...prefix, node, script];
  const out = execFileSync(argv[0], argv.slice(1), { env: { ...process.env, SHELLRING_BINDING_PATH: addon }, encoding: 'utf8' });
  log(`  ran: SHELLRING_BINDING_PATH=${addon} ${argv.join(' ')}   (runnerPath ${runnerPath})`);
  log(`  bash tool call: ${out.trim()}`);
  const result = JSON.parse(out.trim().split('\n').at(-1));
  const arch = { x86_64: 'x64', aarch64: 'arm64' }[target.machine];
  if (result.arch !== arch || !/^hello from \S+ bash\n\[exit code: 3\]$/.test(result.text)) {
    throw new Error(`${target.abi} addon: unexpected result`);
  }
}

/** Where commands cannot run (macOS): the addon loads and has the binding's entry points. */
function loadAddon(target) {
  const addon = join(artifacts, `${manifest.napi.binaryName}.${target.abi}.node`);
  const script = `const b = require(${JSON.stringify(addon)}); if (typeof b.create !== 'function' || typeof b.ringReadInto !== 'function') process.exit(1);`;
  execFileSync(process.execPath, ['-e', script]);
  log(`  ran: node -e 'require("${addon}")' (loads, exports create and ringReadInto; commands need Linux)`);
}

/** No musl Node on a glibc host: musl's own dynamic linker loads the addon instead (musl-gcc from musl-tools). */
function loadMuslAddon(target) {
  const addon = join(artifacts, `${manifest.napi.binaryName}.${target.abi}.node`);
  const checker = join(scratch, 'musl-dlopen');
  try {
    execFileSync('musl-gcc', ['-o', checker, join(root, '.ci', 'musl-dlopen.c')]);
  } catch (error) {
    log(`  addon: not loaded (no musl Node here, and musl-gcc failed for the dlopen check: ${error.message.split('\n')[0]})`);
    return;
  }
  const out = execFileSync(checker, [addon], { encoding: 'utf8' });
  log(`  ran: ${checker} ${addon}   (built with musl-gcc from .ci/musl-dlopen.c; no musl Node on this host)`);
  log(`  addon: ${out.trim()}`);
}

let failed = false;
let seen = 0;
try {
  for (const target of targets) {
    const present = ['addon', 'runner'].some((k) => existsSync(join(artifacts, k === 'addon' ? `${manifest.napi.binaryName}.${target.abi}.node` : `shellring-runner.${target.abi}`)));
    if (!present) {
      // A target asked for by name must have been built: CI downloads its artefacts and would otherwise pass empty.
      if (args.target) {
        failed = true;
        log(`${target.abi}: FAILED: no artefacts in ${artifacts}`);
      }
      continue;
    }
    seen += 1;
    log(`${target.abi}:`);
    const prefix = launcher(target);
    if (prefix === null) {
      log(`  not run: this ${process.platform} ${hostMachine} host cannot run ${target.platform} ${target.machine} binaries`);
      continue;
    }
    try {
      if (target.platform === 'linux') await runRunner(target, prefix);
      else log('  runner: none (the runner is Linux-only)');
      // Under qemu the Node is Debian's arm64 one, a glibc build.
      const nodeLibc = prefix.length > 0 || !hostMusl ? 'gnu' : 'musl';
      if (target.platform !== 'linux') loadAddon(target);
      else if (target.libc !== nodeLibc && target.libc === 'musl' && prefix.length === 0) loadMuslAddon(target);
      else if (target.libc !== nodeLibc) log(`  addon: not run (no ${target.libc} Node on this host)`);
      else await runAddon(target, prefix);
    } catch (error) {
      failed = true;
      log(`  FAILED: ${error.message}`);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
if (seen === 0) log(`no release artefacts in ${artifacts}: run \`npm run release:build\` first`);
process.exit(failed || seen === 0 ? 1 : 0);
