// The two capture backends under test, loaded the way the library loads them.
import type { CaptureBackend } from '../../src/capture/types.js';
import { referenceBackend } from '../../test/capture/reference/index.js';

export type BackendName = 'native' | 'reference';

export interface Backends {
  native: CaptureBackend;
  reference: CaptureBackend;
}

/**
 * Loads the native addon. A benchmark of the native output path without it would be meaningless, so a missing
 * binary fails the run instead of being skipped.
 */
export async function loadBackends(): Promise<Backends> {
  const { nativeBackend } = await import('../../src/capture/native.js');
  if (nativeBackend.kind !== 'native') throw new Error(`expected the native backend, got ${nativeBackend.kind}`);
  return { native: nativeBackend, reference: referenceBackend };
}

export async function loadBackend(name: BackendName): Promise<CaptureBackend> {
  return name === 'reference' ? referenceBackend : (await loadBackends()).native;
}
