// Chooses the capture backend: the native core when its addon loads, else the pure-TypeScript fallback.
import { loadBinding } from '../native/loader.js';
import { fallbackBackend } from './fallback/index.js';
import { nativeBackend } from './native.js';
import { ringReadBytes } from './read-bytes.js';
import type { CaptureBackend } from './types.js';

export type * from './types.js';
export { fallbackBackend, nativeBackend, ringReadBytes };

/** `native` or `fallback` forces a backend; unset (or empty) picks native when it loads. */
export const CAPTURE_ENV = 'SHELLRING_CAPTURE';

let automatic: CaptureBackend | undefined;

/**
 * The backend to use. Nothing is logged when the fallback is chosen; `.kind` tells which one it is.
 *
 * @throws the loader's error (code `SHELLRING_BINDING_MISSING`) when `SHELLRING_CAPTURE=native` and the addon does
 * not load, and an Error with code `SHELLRING_INVALID_CAPTURE` for any other value than `native` or `fallback`.
 */
export function getCaptureBackend(): CaptureBackend {
  const forced = process.env[CAPTURE_ENV];
  if (forced === 'fallback') return fallbackBackend;
  if (forced === 'native') {
    loadBinding();
    return nativeBackend;
  }
  if (forced !== undefined && forced !== '') {
    throw Object.assign(new Error(`invalid ${CAPTURE_ENV} ${JSON.stringify(forced)}: expected "native" or "fallback"`), {
      code: 'SHELLRING_INVALID_CAPTURE',
    });
  }
  // Decided once: a missing addon would otherwise be searched for again on every call.
  automatic ??= nativeLoads() ? nativeBackend : fallbackBackend;
  return automatic;
}

function nativeLoads(): boolean {
  try {
    loadBinding();
    return true;
  } catch {
    return false;
  }
}
