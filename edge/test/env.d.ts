import type { D1Migration } from 'cloudflare:test';
import type { Bindings } from '../src/env.js';

declare module 'cloudflare:test' {
  interface ProvidedEnv extends Bindings {
    TEST_MIGRATIONS: D1Migration[];
    CLOSED_BACKEND_URL: string;
    TEST_RATE_LIMITER: RateLimit;
    TEST_REPLICA: D1Database;
  }
}
