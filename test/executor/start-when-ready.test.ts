// A handle for a command still being prepared: it exists at once, runs when its spec arrives, and settles without
// starting anything when the preparation fails, a kill comes first, or the executor closes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalExecutor } from '../../src/executor/local.js';
import type { ExecSpec } from '../../src/executor/types.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-ready-')));
let executor: LocalExecutor;

beforeAll(() => {
  executor = new LocalExecutor({ cwd: work, threads: 1 });
});
afterAll(async () => {
  await executor.close();
  rmSync(work, { recursive: true, force: true });
});

function deferred(): { promise: Promise<ExecSpec>; resolve(spec: ExecSpec): void; reject(error: Error): void } {
  let resolve!: (spec: ExecSpec) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<ExecSpec>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('startWhenReady', () => {
  it('returns a running handle at once and runs the command when its spec arrives', async () => {
    const spec = deferred();
    const handle = executor.startWhenReady(spec.promise, { sessionId: 's1', ring: true });
    expect(handle.status).toBe('running');
    expect(handle.stdout.read(0).data.length).toBe(0);
    spec.resolve(executor.resolve({ command: 'echo ready', sessionId: 's1' }));
    expect(await handle.done).toEqual({ status: 'exited', exitCode: 0, signal: null });
    expect(handle.stdout.read(0).data.toString()).toBe('ready\n');
    await handle.gone;
    handle.release();
  });

  it('settles as failed with the preparation’s message when it rejects', async () => {
    const spec = deferred();
    const handle = executor.startWhenReady(spec.promise);
    spec.reject(new Error('the sandbox could not be prepared'));
    expect(await handle.done).toEqual({ status: 'killed', exitCode: null, signal: null, error: 'the sandbox could not be prepared' });
    expect(handle.stderr.read(0).data.toString()).toBe('the sandbox could not be prepared\n');
    await handle.gone;
    handle.release();
  });

  it('a kill before the spec arrives settles it as killed, and the command never starts', async () => {
    const spec = deferred();
    const handle = executor.startWhenReady(spec.promise);
    handle.kill();
    expect(await handle.done).toEqual({ status: 'killed', exitCode: null, signal: null });
    await handle.gone;
    spec.resolve(executor.resolve({ command: 'touch killed-early' }));
    await spec.promise;
    // One worker takes commands in order: a later command has run once anything started before it would have, and
    // it lasts long enough (2 s) for such a `touch` to have acted however loaded the host.
    const later = await executor.run(executor.resolve({ command: 'sleep 2; echo later' }));
    expect(later.stdout.text).toBe('later\n');
    expect(existsSync(join(work, 'killed-early'))).toBe(false);
    expect(handle.stderr.read(0).data.length).toBe(0);
    handle.release();
  });

  it('a release before the spec arrives ends it the same way', async () => {
    const spec = deferred();
    const handle = executor.startWhenReady(spec.promise);
    handle.release();
    expect(await handle.done).toEqual({ status: 'killed', exitCode: null, signal: null });
    spec.resolve(executor.resolve({ command: 'touch released-early' }));
    await spec.promise;
    await executor.run(executor.resolve({ command: 'sleep 2' }));
    expect(existsSync(join(work, 'released-early'))).toBe(false);
  });

  it('closing the executor or the session ends what is still being prepared', async () => {
    const own = new LocalExecutor({ cwd: work, threads: 1 });
    const session = deferred();
    const inSession = own.startWhenReady(session.promise, { sessionId: 'closing' });
    const other = deferred();
    const elsewhere = own.startWhenReady(other.promise, { sessionId: 'staying' });
    await own.closeSession('closing');
    expect(await inSession.done).toEqual({ status: 'killed', exitCode: null, signal: null });
    expect(elsewhere.status).toBe('running');
    const closed = own.close();
    expect(await elsewhere.done).toEqual({ status: 'killed', exitCode: null, signal: null });
    await closed;
    session.resolve(own.resolve({ command: 'touch closed-session' }));
    other.resolve(own.resolve({ command: 'touch closed-executor' }));
    await Promise.all([session.promise, other.promise]);
    expect(() => own.startWhenReady(Promise.reject(new Error('late')))).toThrow('the executor is closed');
    expect(existsSync(join(work, 'closed-session'))).toBe(false);
    expect(existsSync(join(work, 'closed-executor'))).toBe(false);
  });
});
