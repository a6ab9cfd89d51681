// The executor's output path on real bash: tails, spill files and their failures, credentials, observers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalExecutor } from '../../src/executor/local.js';
import { spillUnavailable } from '../../src/contract/index.js';
import { processesWith } from '../helpers/processes.js';
import { until } from '../helpers/until.js';

const MIB = 1024 * 1024;
const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-out-')));
let executor: LocalExecutor;

beforeAll(() => {
  executor = new LocalExecutor({ cwd: work, maxSpillBytes: 256 * MIB });
});
afterAll(async () => {
  await executor.close();
  rmSync(work, { recursive: true, force: true });
});

const run = (ex: LocalExecutor, command: string, extra: Record<string, unknown> = {}) =>
  ex.run(ex.resolve({ command, ...extra }));

function sha256File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolve(hash.digest('hex')))
      .on('error', reject);
  });
}

describe('tails and spill files', () => {
  it('keeps the last 64000 bytes and spills the whole 200 MiB stream', async () => {
    const source = join(work, 'source.bin');
    // Random bytes, then 100000 bytes of base64 text: the tail falls in the text, so it compares byte for byte.
    execFileSync('bash', ['-c', `head -c ${200 * MIB - 100_000} /dev/urandom > ${source}; head -c 75000 /dev/urandom | base64 -w 0 >> ${source}`]);
    const result = await run(executor, `cat ${source}; echo done >&2`, { sessionId: 'spill' });
    expect(result.stdout.truncated).toBe(true);
    expect(result.stderr).toEqual({ text: 'done\n', truncated: false });
    const spill = result.stdout.spillPath!;
    expect(spill.startsWith(executor.spills.root)).toBe(true);
    expect(statSync(spill).mode & 0o777).toBe(0o600);
    expect(statSync(executor.spills.root).mode & 0o777).toBe(0o700);
    expect(statSync(spill).size).toBe(200 * MIB);
    expect(await sha256File(spill)).toBe(await sha256File(source));
    // The retained tail is exactly the stream's last 64000 bytes.
    const last = readFileSync(source).subarray(-64_000);
    expect(Buffer.from(result.stdout.text, 'utf8').equals(last)).toBe(true);
    await executor.closeSession('spill');
    expect(existsSync(spill)).toBe(false);
  });

  it('back-fills the spill file with the bytes the tail held at the first overflow', async () => {
    const flag = join(work, 'overflow-now');
    // The first line is read on its own (the command waits until it is captured); only then does the stream overflow.
    const handle = executor.start(
      executor.resolve({
        command: `printf 'first line\\n'; while [ ! -e ${flag} ]; do sleep 0.01; done; head -c 100000 /dev/zero`,
        sessionId: 'backfill',
      }),
    );
    await until(() => handle.stdout.read(0, 64).data.length === 11, 10_000, 'the first line captured');
    writeFileSync(flag, '');
    await handle.done;
    const { stdout } = handle.streams();
    const spilled = readFileSync(stdout.spillPath!);
    expect(spilled.length).toBe(100_011);
    expect(spilled.subarray(0, 11).toString()).toBe('first line\n');
    expect(spilled.subarray(11).equals(Buffer.alloc(100_000))).toBe(true);
    handle.release();
    await executor.closeSession('backfill');
  });

  it('reports a stream past the spill cap as unavailable', async () => {
    const small = new LocalExecutor({ cwd: work, maxSpillBytes: MIB, threads: 1 });
    try {
      const result = await run(small, `head -c ${2 * MIB} /dev/zero`);
      expect(result.stdout.truncated).toBe(true);
      expect(result.stdout.spillPath).toBeUndefined();
      expect(result.stdout.text.length).toBe(64_000);
    } finally {
      await small.close();
    }
  });

  it('degrades to unavailable, saying why, when no spill directory can be made (the root and its parent deleted)', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'shellring-gone-'));
    const local = new LocalExecutor({ cwd: work, threads: 1, spillRoot: parent });
    try {
      rmSync(parent, { recursive: true, force: true });
      const result = await run(local, 'head -c 200000 /dev/zero; echo ok >&2');
      expect(result.stdout.truncated).toBe(true);
      expect(result.stdout.spillPath).toBeUndefined();
      expect(result.stdout.spillUnavailable).toBe(spillUnavailable.noDirectory(`ENOENT: no such file or directory, mkdir '${local.spills.root}'`));
      expect(result.stderr.text).toBe('ok\n');
    } finally {
      await local.close();
    }
  });

  it('degrades to unavailable when the disk is full', async (context) => {
    if (process.getuid?.() !== 0) context.skip();
    const mount = mkdtempSync(join(tmpdir(), 'shellring-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mount]);
    const local = new LocalExecutor({ cwd: work, threads: 1, spillRoot: mount });
    try {
      const result = await run(local, `head -c ${4 * MIB} /dev/zero; echo ok`);
      expect(result.exitCode).toBe(0);
      expect(result.stdout.truncated).toBe(true);
      expect(result.stdout.spillPath).toBeUndefined();
      expect(result.stdout.spillUnavailable).toBe(spillUnavailable.failed);
    } finally {
      await local.close();
      execFileSync('umount', [mount]);
      rmSync(mount, { recursive: true, force: true });
    }
  });

  it('keeps spill files past session close when asked to', async () => {
    const keep = new LocalExecutor({ cwd: work, threads: 1, keepSpills: true });
    try {
      const result = await run(keep, 'head -c 100000 /dev/zero', { sessionId: 'kept' });
      await keep.closeSession('kept');
      expect(existsSync(result.stdout.spillPath!)).toBe(true);
    } finally {
      await keep.close();
      rmSync(keep.spills.root, { recursive: true, force: true });
    }
  });

  it('gives no spill file once the session quota is used up', async () => {
    const quota = new LocalExecutor({ cwd: work, threads: 1, sessionSpillQuota: 150_000 });
    try {
      const first = await run(quota, 'head -c 100000 /dev/zero', { sessionId: 'q' });
      expect(first.stdout.spillPath).toBeDefined();
      const second = await run(quota, 'head -c 100000 /dev/zero', { sessionId: 'q' });
      expect(second.stdout.spillPath).toBeUndefined();
      const other = await run(quota, 'head -c 100000 /dev/zero', { sessionId: 'other' });
      expect(other.stdout.spillPath).toBeDefined();
    } finally {
      await quota.close();
    }
  });
});

describe('environment', () => {
  it('never passes credentials or stale DSH_* to the child, and leaves process.env alone', async () => {
    const saved = { ...process.env };
    process.env.GITHUB_TOKEN = 'ghp_secret';
    process.env.my_api_key = 'k';
    process.env.DB_PASSWORD = 'p';
    process.env.DSH_SESSION_ID = 'stale';
    try {
      const before = JSON.stringify(process.env);
      const result = await run(executor, 'env | grep -i -E "token|key|password|secret|^dsh_" | grep -v -E "^GIT_CONFIG_KEY_[01]=(maintenance|gc)\\.autoDetach$"; echo "$TERM $NO_COLOR $PAGER $GIT_PAGER"');
      expect(result.stdout.text).toBe('dumb 1 cat cat\n');
      expect(JSON.stringify(process.env)).toBe(before);
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    }
  });
});

describe('start and observers', () => {
  it('observer reads are lossless while they keep up', async () => {
    const handle = executor.start(
      executor.resolve({ command: 'for i in $(seq 1 400); do echo "line $i"; sleep 0.001; done' }),
    );
    const seen: Buffer[] = [];
    let offset = 0;
    const drain = () => {
      for (;;) {
        const read = handle.stdout.read(offset, 4096);
        expect(read.lossy).toBe(false);
        if (!read.data.length) return;
        seen.push(read.data);
        offset = read.next;
      }
    };
    while (handle.status === 'running') {
      drain();
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const outcome = await handle.done;
    drain();
    expect(outcome).toEqual({ status: 'exited', exitCode: 0, signal: null });
    const expected = Array.from({ length: 400 }, (_, i) => `line ${i + 1}\n`).join('');
    expect(Buffer.concat(seen).toString()).toBe(expected);
    handle.release();
  });

  it('observer reads that fall behind are flagged lossy', async () => {
    const handle = executor.start(executor.resolve({ command: 'head -c 1000000 /dev/zero' }));
    await handle.done;
    const read = handle.stdout.read(0, 1000);
    expect(read.lossy).toBe(true);
    expect(read.from).toBe(1_000_000 - 64_000);
    handle.release();
  });

  it('kill is idempotent and settles the handle as killed', async () => {
    const handle = executor.start(executor.resolve({ command: 'echo up; sleep 30' }));
    // Killed once bash runs (its first line is out), not after a guess at how long starting takes.
    await until(() => handle.stdout.read(0).data.length > 0, 10_000, 'bash started');
    handle.kill();
    handle.kill();
    expect(await handle.done).toEqual({ status: 'killed', exitCode: null, signal: 'SIGTERM' });
    handle.release();
  });

  it('a spawn failure settles the handle as killed with the error once on stderr', async () => {
    const handle = executor.start(executor.resolve({ command: 'true', workdir: '/nonexistent/dir' }));
    const outcome = await handle.done;
    expect(outcome.status).toBe('killed');
    expect(outcome.error).toMatch(/ENOENT/);
    expect(handle.stderr.read(0).data.toString()).toBe(`${outcome.error}\n`);
    handle.release();
  });

  it('a missing bash is an infrastructure failure', async () => {
    const bin = join(work, 'nobash');
    mkdirSync(bin, { recursive: true });
    await expect(run(executor, 'true', { env: { PATH: bin } })).rejects.toThrow(/spawn bash: No such file/);
  });
});

describe('worker crash', () => {
  it('fails the calls the worker was running and recovers for the next call', async () => {
    const local = new LocalExecutor({ cwd: work, threads: 1 });
    try {
      const pending = run(local, 'sleep 30.4321');
      pending.catch(() => {});
      // The runner and the sleep it started.
      await until(() => processesWith('sleep 30.4321').length > 0, 10_000, 'the sleep to start');
      await local.threads[0]!.terminate();
      // Either the pool reports the dead worker or the worker saw its runner's lifeline cut first.
      await expect(pending).rejects.toThrow(/supervisor worker stopped|runner ended without reporting/);
      // The runner lost its lifeline with the worker and killed the command.
      await until(() => processesWith('sleep 30.4321').length === 0, 10_000, 'the sleep to be gone');
      expect((await run(local, 'echo again')).stdout.text).toBe('again\n');
    } finally {
      await local.close();
    }
  });
});
