// Test runner configuration: real bash, real workers, so tests run in forks with generous timeouts.
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:quick` (SHELLRING_TEST_QUICK=1) is the inner loop: it leaves out the suites that install a clean
 * copy or a packed tarball, or push a gigabyte through the runtime. `npm test` (and CI) runs everything.
 */
const SLOW = ['test/readme.test.ts', 'test/package/**', 'test/runtime/memory.test.ts', 'test/native/memory.test.ts'];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: process.env.SHELLRING_TEST_QUICK === '1' ? SLOW : [],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
