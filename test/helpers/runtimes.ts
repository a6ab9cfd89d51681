// Runtimes a test file opens with one worker thread each, all closed after the file's tests.
import { afterAll } from 'vitest';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/index.js';

/** Registers the file's afterAll and returns its `open`. */
export function runtimes(): (options?: RuntimeOptions) => Promise<Runtime> {
  const opened: Runtime[] = [];
  afterAll(async () => {
    await Promise.all(opened.map((runtime) => runtime.close()));
  });
  return async (options = {}) => {
    const runtime = await createRuntime({ ...options, executor: { threads: 1, ...options.executor } });
    opened.push(runtime);
    return runtime;
  };
}
