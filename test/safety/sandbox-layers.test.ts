// The Landlock backend's layers, each on its own through the real executor and runner: the Landlock ruleset and the
// seccomp filter with the mount layer off (the runner's seccomp isolation), and the read-only mount layer, which
// alone stops a change of mode outside the writable roots (Landlock has no right for it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalExecutor } from '../../src/executor/local.js';
import { UNCONFINED, type ConfinementPlan } from '../../src/executor/wire/plan.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-layers-')));
const ws = join(base, 'ws');
const side = join(base, 'side');
let executor: LocalExecutor;

beforeAll(() => {
  mkdirSync(ws);
  mkdirSync(side);
  executor = new LocalExecutor({ cwd: ws, threads: 1 });
});
afterAll(async () => {
  await executor.close();
  rmSync(base, { recursive: true, force: true });
});

/** A file outside the writable root, mode 0644 before each test. */
function sideFile(name: string): string {
  const path = join(side, name);
  writeFileSync(path, 'x');
  chmodSync(path, 0o644);
  return path;
}

const mode = (path: string) => statSync(path).mode & 0o7777;

function confined(command: string, isolation: ConfinementPlan['isolation']) {
  const plan: ConfinementPlan = { ...UNCONFINED, backend: 'landlock', isolation, writable: [ws] };
  return executor.run(executor.resolve({ command, sandboxPolicy: { mode: 'workspace-write', plan } }));
}

describe('with the mount layer off (seccomp isolation)', () => {
  it('the Landlock ruleset alone keeps new files inside the writable root', async () => {
    const outside = join(side, 'landlock-new');
    const result = await confined(`echo in > in && echo write-in-ok; echo out > ${outside} || echo write-out-refused`, 'seccomp');
    expect(result.sandbox?.enforcement).toBe('partial');
    expect(result.stdout.text).toBe('write-in-ok\nwrite-out-refused\n');
    expect(result.stderr.text).toContain('Permission denied');
    expect(existsSync(outside)).toBe(false);
  });

  it('the seccomp filter alone refuses a change of mode, outside the root and inside it', async () => {
    const file = sideFile('seccomp');
    const result = await confined(`chmod 777 ${file} || echo outside-refused; echo in > in2 && chmod +x in2 || echo inside-refused`, 'seccomp');
    expect(result.stdout.text).toBe('outside-refused\ninside-refused\n');
    expect(result.stderr.text).toContain('Operation not permitted');
    expect(mode(file)).toBe(0o644);
    expect(mode(join(ws, 'in2')) & 0o111).toBe(0);
  });
});

describe('with the mount layer on', () => {
  it('the read-only mounts alone refuse a change of mode outside the root, while one inside it works', async () => {
    const file = sideFile('mount');
    const result = await confined(`chmod 777 ${file} || echo outside-refused; echo in > in3 && chmod +x in3 && echo inside-ok`, 'auto');
    expect(result.sandbox?.enforcement).toBe('full');
    expect(result.stdout.text).toBe('outside-refused\ninside-ok\n');
    expect(result.stderr.text).toContain('Read-only file system');
    expect(mode(file)).toBe(0o644);
  });
});
