// Test runner configuration: real bash, real workers, so tests run in forks with generous timeouts.
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:quick` (SHELLRING_TEST_QUICK=1) is the inner loop: it leaves out the suites that install a clean
 * copy, a packed tarball or third-party MCP clients, push a gigabyte or hundreds of jobs through the runtime, drive a real browser, or deploy
 * behind a real load balancer. `npm test` (and CI) runs everything.
 */
const SLOW = [
  'test/readme.test.ts',
  'test/package/**',
  'test/deploy/**',
  'test/runtime/memory.test.ts',
  'test/runtime/zero-loss.test.ts',
  'test/runtime/many-jobs.test.ts',
  'test/native/memory.test.ts',
  'test/faces/console/browser.test.ts',
  'test/faces/console/follow.test.ts',
  'test/faces/serve-memory.test.ts',
  'test/policy/console-browser.test.ts',
  'test/interop/**',
];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/interop installs third-party clients beside their tests: their node_modules hold tests of their own.
    exclude: ['**/node_modules/**', ...(process.env.SHELLRING_TEST_QUICK === '1' ? SLOW : [])],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits on what a page or a process shows; its default of 1 s is a window a loaded host misses.
    expect: { poll: { timeout: 30_000 } },
  },
});
