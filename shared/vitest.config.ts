import { defineConfig } from 'vitest/config';
// A generous per-test limit: on a loaded machine, validating the whole OpenAPI document alone takes seconds.
export default defineConfig({ test: { include: ['src/**/*.test.ts'], testTimeout: 60_000 } });
