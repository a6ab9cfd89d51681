// cargo-zigbuild for the CI scripts: zig's bundled C toolchain links (and compiles the C of tree-sitter for) every
// Linux target, gnu and musl, x64 and arm64, and compiles C for macOS, with no sysroot or Debian cross packages.
// Two PyPI wheels, pinned here, in a virtualenv under target/.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const CARGO_ZIGBUILD_VERSION = '0.24.1';
const ZIGLANG_VERSION = '0.17.1';

/** A PATH with cargo-zigbuild on it: the one already there, else the pinned versions installed under `root`/target. */
export function zigbuildPath(root) {
  if (spawnSync('cargo', ['zigbuild', '--version'], { stdio: 'ignore' }).status === 0) return process.env.PATH;
  const venv = join(root, 'target', 'release-tools', 'zig');
  const bin = join(venv, 'bin');
  if (!existsSync(join(bin, 'cargo-zigbuild'))) {
    process.stderr.write(`== installing cargo-zigbuild ${CARGO_ZIGBUILD_VERSION} and ziglang ${ZIGLANG_VERSION} from PyPI into ${venv}\n`);
    const run = (file, argv) => execFileSync(file, argv, { cwd: root, stdio: ['ignore', 2, 'inherit'] });
    run('python3', ['-m', 'venv', venv]);
    run(join(bin, 'pip'), ['install', '--quiet', `cargo-zigbuild==${CARGO_ZIGBUILD_VERSION}`, `ziglang==${ZIGLANG_VERSION}`]);
  }
  return `${bin}${delimiter}${process.env.PATH}`;
}
