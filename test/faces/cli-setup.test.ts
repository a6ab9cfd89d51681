// What `shellring` prints when its installation lacks a part: one paragraph naming it and the fix, exit 1, no stack.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { FACE_PEERS } from '../../src/faces/peers.js';
import { platformTriple } from '../../src/native/loader.js';
import { cli, repo } from './helpers.js';

const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string; peerDependencies: Record<string, string> };
const scratch = mkdtempSync(join(tmpdir(), 'shellring-cli-setup-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// Makes the packages named in REFUSE missing, as Node reports a package that is not installed.
const hook = join(scratch, 'refuse.mjs');
writeFileSync(
  hook,
  `import { registerHooks } from 'node:module';
const refused = new Set(JSON.parse(process.env.REFUSE));
registerHooks({
  resolve(specifier, context, next) {
    const bare = /^(?:@[^/]+\\/)?[^./][^/]*/.exec(specifier)?.[0];
    if (refused.has(bare)) throw Object.assign(new Error("Cannot find package '" + bare + "' imported from " + context.parentURL), { code: 'ERR_MODULE_NOT_FOUND' });
    return next(specifier, context);
  },
});
`,
);

function shellring(args: string[], env: Record<string, string> = {}, refuse: string[] = []) {
  const run = spawnSync(process.execPath, ['--import', pathToFileURL(hook).href, cli, ...args], {
    cwd: scratch,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, ...env, REFUSE: JSON.stringify(refuse) },
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The packages the paragraph names for these faces, with package.json's ranges. */
function install(faces: (keyof typeof FACE_PEERS)[]): string[] {
  return faces.flatMap((face) => FACE_PEERS[face].map((name) => `${name}@${manifest.peerDependencies[name]}`));
}

describe('shellring without a part of its installation', () => {
  const nowhere = join(scratch, 'nowhere.node');
  const triple = platformTriple();

  it('prints the missing binding as one paragraph and exits 1', () => {
    expect(shellring(['run', '--', 'echo ok'], { SHELLRING_BINDING_PATH: nowhere })).toEqual({
      status: 1,
      stdout: '',
      stderr:
        `shellring: the native binding for ${triple} did not load from SHELLRING_BINDING_PATH=${nowhere} (Cannot find module '${nowhere}'). ` +
        `Fix: point SHELLRING_BINDING_PATH at a shellring.${triple}.node built for shellring ${manifest.version}, or unset it to use the package @shellring/binding-${triple}.\n`,
    });
  });

  it('still answers --help and --version without the binding', () => {
    const help = shellring(['--help'], { SHELLRING_BINDING_PATH: nowhere });
    expect(help).toMatchObject({ status: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: shellring /);
    expect(shellring(['--version'], { SHELLRING_BINDING_PATH: nowhere })).toEqual({ status: 0, stdout: `${manifest.version}\n`, stderr: '' });
  });

  it('runs `shellring run` with none of the faces installed', () => {
    expect(shellring(['run', '--', 'echo ok'], {}, Object.values(FACE_PEERS).flat())).toEqual({ status: 0, stdout: 'ok\n', stderr: '' });
  });

  it.each([
    ['mcp', '@modelcontextprotocol/server', ['mcp'] as const],
    ['mcp', '@modelcontextprotocol/sdk', ['mcp'] as const],
    ['serve', 'pino', ['mcp', 'http', 'console'] as const],
    ['serve', 'prom-client', ['mcp', 'http', 'console'] as const],
  ])("names what `shellring %s` needs when %s is missing, and the commands installing it", (command, missing, faces) => {
    const specs = install([...faces]);
    expect(shellring([command], {}, [missing])).toEqual({
      status: 1,
      stdout: '',
      stderr:
        `shellring ${command} needs the package ${missing}, which is not installed: it is an optional peer dependency of shellring, installed only where it is used. ` +
        `Fix: run \`npm install ${specs.join(' ')}\` beside shellring (with -g for a global one), or with npx: \`npx -p shellring ${specs.map((spec) => `-p ${spec}`).join(' ')} shellring ${command}\`.\n`,
    });
  });
});
