// The release checks of .ci/ read real binaries: this host's build, and programs of the system, must be told apart correctly.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { binaryFacts, compareVersions } from '../../.ci/binary-facts.mjs';
import { checkFacts, describeTarget, GLIBC_FLOOR } from '../../.ci/release-targets.mjs';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const gnu = describeTarget('x86_64-unknown-linux-gnu');
const musl = describeTarget('x86_64-unknown-linux-musl');
const arm64 = describeTarget('aarch64-unknown-linux-gnu');

describe('release binary checks', () => {
  it('orders glibc versions numerically', () => {
    expect(compareVersions('2.17', '2.3')).toBeGreaterThan(0);
    expect(compareVersions('2.17', '2.17')).toBe(0);
    expect(compareVersions('2.2.5', '2.17')).toBeLessThan(0);
  });

  it("reads this host's runner and addon as glibc x86_64 builds", () => {
    const runner = binaryFacts(join(repo, 'shellring-runner'));
    expect(runner).toMatchObject({ format: 'ELF', machine: 'x86_64', interpreter: '/lib64/ld-linux-x86-64.so.2' });
    expect(runner.needed).toContain('libc.so.6');
    expect(runner.maxGlibc).toMatch(/^2\.\d+$/);
    const addon = binaryFacts(join(repo, 'shellring.linux-x64-gnu.node'));
    expect(addon).toMatchObject({ format: 'ELF', machine: 'x86_64', interpreter: null });
    // The local build links the host's glibc, which is newer than the release floor: the check must say so.
    expect(compareVersions(runner.maxGlibc, GLIBC_FLOOR)).toBeGreaterThan(0);
    expect(checkFacts(gnu, 'runner', runner)).toEqual([`needs glibc ${runner.maxGlibc}, newer than the floor ${GLIBC_FLOOR}`]);
  });

  it('refuses a binary for the wrong machine or libc', () => {
    const runner = binaryFacts(join(repo, 'shellring-runner'));
    expect(checkFacts(arm64, 'runner', runner)).toContain('machine x86_64, expected aarch64');
    const failures = checkFacts(musl, 'runner', runner);
    expect(failures).toContain(`glibc symbol versions up to ${runner.maxGlibc} in a musl build`);
    expect(failures.some((f: string) => f.startsWith('not static: loader /lib64/ld-linux-x86-64.so.2'))).toBe(true);
  });

  it('reads a static program as static', () => {
    // Debian's ldconfig is a static executable of the host machine.
    const ldconfig = ['/sbin/ldconfig', '/usr/sbin/ldconfig'].find((f) => existsSync(f))!;
    expect(binaryFacts(ldconfig)).toMatchObject({ format: 'ELF', machine: 'x86_64', interpreter: null, needed: [] });
  });
});
