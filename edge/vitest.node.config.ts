import { defineConfig } from 'vitest/config';

/** Node-side tests: the Worker under `wrangler dev` over real HTTP, and the admin CLI against it. */
export default defineConfig({
  test: {
    include: ['test/**/*.e2e.test.ts', 'test/**/*.node.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
