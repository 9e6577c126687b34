import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['e2e/**/*.test.ts', 'docs/**/*.test.ts', 'soak/**/*.test.ts'],
    // The platform the files that only call it share (e2e/shared-platform.ts), started when first asked for.
    globalSetup: ['e2e/support/platform-broker.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // Threads load each model on first use: warming every thread of every backend a test starts costs CI minutes.
    env: { IRIS_WARM_MODELS: '0' },
    pool: 'forks',
    // One platform (PostgreSQL + two backends + the edge) at a time on two cores.
    poolOptions: { forks: { singleFork: true } },
  },
});
