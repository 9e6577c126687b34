import { defineConfig } from 'vitest/config';

/** Node-side tests: the Worker on workerd as `npm start` runs it, over real HTTP, and the admin CLI against it. */
export default defineConfig({
  test: {
    include: ['test/**/*.e2e.test.ts', 'test/**/*.node.test.ts'],
    // The CLI test runs ~18 CLI processes in a row: over a minute on a loaded two-core machine.
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
