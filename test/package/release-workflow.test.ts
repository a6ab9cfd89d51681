// What can be checked here of the release workflow, which only a forge runs: its targets, its commands, its triggers.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
const workflow = readFileSync(join(repo, '.github/workflows/release.yml'), 'utf8');
/** The text of one job: from its key to the next top-level job key. */
const job = (name: string) => workflow.split(/^ {2}(?=\w[\w-]*:$)/m).find((part) => part.startsWith(`${name}:`))!;

describe('release workflow', () => {
  it('builds and runs every napi target', () => {
    for (const name of ['build', 'test']) {
      const targets = [...job(name).matchAll(/\{ target: ([\w-]+),/g)].map((m) => m[1]);
      expect(targets, name).toEqual(manifest.napi.targets);
    }
    // Each target runs on a host of its own kind: arm64 Linux on an arm64 runner, macOS on macOS.
    expect(job('test')).toContain('{ target: aarch64-unknown-linux-gnu, host: ubuntu-24.04-arm }');
    expect(job('test')).toMatch(/\{ target: x86_64-unknown-linux-musl, host: ubuntu-24\.04, alpine: true \}/);
    expect(job('build')).toMatch(/\{ target: aarch64-apple-darwin, host: macos-/);
  });

  it('uses the scripts this repository runs, and nothing else', () => {
    const scripts = [...workflow.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1]!);
    expect(new Set(scripts)).toEqual(new Set(['release:build', 'build:ts', 'release:run', 'package:platforms']));
    for (const script of scripts) expect(manifest.scripts[script], script).toBeDefined();
    for (const [, file] of workflow.matchAll(/node (\.ci\/[\w.-]+)/g)) expect(existsSync(join(repo, file!)), file).toBe(true);
  });

  it('publishes only from a version tag, with provenance, platform packages before the root', () => {
    expect(workflow).toMatch(/^on:\n {2}push:\n {4}tags: \['v\[0-9\]\+\.\[0-9\]\+\.\[0-9\]\+\*'\]\n\n/m);
    expect(workflow).not.toMatch(/branches:|pull_request|workflow_dispatch/);
    const publish = job('publish');
    expect(publish).toContain('needs: test');
    expect(publish).toContain('id-token: write');
    expect(publish).toContain('test "v$(node -p \'require("./package.json").version\')" = "$GITHUB_REF_NAME"');
    expect(publish).toContain('npm run package:platforms -- --artifacts artifacts --all-targets --out release');
    const publishes = [...publish.matchAll(/npm publish (.+) --provenance --access public$/gm)].map((m) => m[1]);
    expect(publishes).toEqual(['"$tarball"', `"$(node -p "require('./release/pack.json').root")"`]);
    // Only the publish job may mint an OIDC token.
    expect(workflow.match(/id-token: write/g)).toHaveLength(1);
  });
});
