// Backend selection: native when the addon loads, the fallback otherwise, and the SHELLRING_CAPTURE override.
import * as path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

const saved = { capture: process.env.SHELLRING_CAPTURE, binding: process.env.SHELLRING_BINDING_PATH };

/** A fresh module graph, so the loader and the selection start from scratch under the current env. */
async function freshSelect() {
  vi.resetModules();
  return (await import('../../src/capture/index.js')).getCaptureBackend;
}

function setEnv(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

afterEach(() => {
  setEnv('SHELLRING_CAPTURE', saved.capture);
  setEnv('SHELLRING_BINDING_PATH', saved.binding);
});

describe('getCaptureBackend', () => {
  it('picks the native backend when the addon loads', async () => {
    setEnv('SHELLRING_CAPTURE', undefined);
    const select = await freshSelect();
    const backend = select();
    expect(backend.kind).toBe('native');
    const id = backend.create();
    backend.write(id, 0, Buffer.from('hi'));
    expect(backend.tail(id, 0)).toEqual(Buffer.from('hi'));
    backend.free(id);
    expect(select()).toBe(backend);
  });

  it('honours SHELLRING_CAPTURE=fallback and =native', async () => {
    setEnv('SHELLRING_CAPTURE', 'fallback');
    expect((await freshSelect())().kind).toBe('fallback');
    setEnv('SHELLRING_CAPTURE', 'native');
    expect((await freshSelect())().kind).toBe('native');
    setEnv('SHELLRING_CAPTURE', '');
    expect((await freshSelect())().kind).toBe('native');
  });

  it('rejects any other SHELLRING_CAPTURE value', async () => {
    setEnv('SHELLRING_CAPTURE', 'rust');
    const select = await freshSelect();
    expect(select).toThrowError('invalid SHELLRING_CAPTURE "rust": expected "native" or "fallback"');
    expect(() => select()).toThrow(expect.objectContaining({ code: 'SHELLRING_INVALID_CAPTURE' }));
  });

  it('falls back silently when the addon is missing, but a forced native throws the loader error', async () => {
    const nowhere = path.join(import.meta.dirname, 'no-such-binding.node');
    setEnv('SHELLRING_BINDING_PATH', nowhere);
    setEnv('SHELLRING_CAPTURE', undefined);
    const warn = vi.spyOn(console, 'warn');
    const error = vi.spyOn(console, 'error');
    const log = vi.spyOn(console, 'log');
    expect((await freshSelect())().kind).toBe('fallback');
    expect([warn, error, log].map((spy) => spy.mock.calls.length)).toEqual([0, 0, 0]);
    setEnv('SHELLRING_CAPTURE', 'native');
    const select = await freshSelect();
    expect(select).toThrow(expect.objectContaining({ code: 'SHELLRING_BINDING_MISSING' }));
    expect(select).toThrowError(nowhere);
  });
});
