import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Threads load each model on first use: warming every thread of every backend a test starts costs CI minutes.
    env: { IRIS_WARM_MODELS: '0' },
    pool: 'forks',
    // Two cores: at most two test files at once (each may start worker threads and models).
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
