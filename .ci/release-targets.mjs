// The release targets: how each is built and what its addon and runner must claim to be.
import { parseTriple } from '@napi-rs/cli';
import { compareVersions } from './binary-facts.mjs';

/**
 * The oldest glibc a gnu artefact may need. 2.17 is Rust's own floor for its Linux gnu targets (CentOS 7,
 * Amazon Linux 2 and every later distribution); zig links against that version's symbols, so a newer build host
 * cannot raise it by accident.
 */
export const GLIBC_FLOOR = '2.17';

/** The program loader a dynamically linked gnu executable names, per machine. */
const GNU_LOADERS = { x86_64: '/lib64/ld-linux-x86-64.so.2', aarch64: '/lib/ld-linux-aarch64.so.1' };
const MACHINES = { x64: 'x86_64', arm64: 'aarch64' };

/** Everything the build and the checks need to know about one target triple. */
export function describeTarget(triple) {
  const { platformArchABI: abi, platform, arch, abi: libc } = parseTriple(triple);
  const machine = MACHINES[arch];
  if (machine === undefined) throw new Error(`${triple}: no release support for the ${arch} architecture`);
  return { triple, abi, platform, arch, machine, libc: platform === 'linux' ? libc : null };
}

/** What `facts` (from binary-facts.mjs) must show for `kind` ('addon' or 'runner') of `target`; a list of failures. */
export function checkFacts(target, kind, facts) {
  const failures = [];
  const expect = (ok, what) => ok || failures.push(what);
  expect(facts.machine === target.machine, `machine ${facts.machine}, expected ${target.machine}`);
  if (target.platform === 'darwin') {
    expect(facts.format === 'Mach-O', `format ${facts.format}, expected Mach-O`);
    return failures;
  }
  expect(facts.format === 'ELF', `format ${facts.format}, expected ELF`);
  if (kind === 'addon') expect(facts.interpreter === null, `an addon with a program loader (${facts.interpreter})`);
  if (target.libc === 'gnu') {
    if (kind === 'runner') expect(facts.interpreter === GNU_LOADERS[target.machine], `loader ${facts.interpreter}, expected ${GNU_LOADERS[target.machine]}`);
    expect(facts.maxGlibc !== null, 'no glibc symbol versions: not linked against glibc');
    if (facts.maxGlibc !== null) expect(compareVersions(facts.maxGlibc, GLIBC_FLOOR) <= 0, `needs glibc ${facts.maxGlibc}, newer than the floor ${GLIBC_FLOOR}`);
  } else {
    // musl: the runner is static (it runs on any Linux of its machine); the addon links the musl libc Node has.
    expect(facts.maxGlibc === null, `glibc symbol versions up to ${facts.maxGlibc} in a musl build`);
    if (kind === 'runner') expect(facts.interpreter === null && facts.needed.length === 0, `not static: loader ${facts.interpreter}, needs ${facts.needed.join(', ')}`);
    if (kind === 'addon') expect(facts.needed.every((lib) => /^libc\.(so|musl-)/.test(lib)), `needs ${facts.needed.join(', ')}, expected musl's libc only`);
  }
  return failures;
}
