import path from 'node:path';
import { defineWorkersConfig, readD1Migrations } from '@cloudflare/vitest-pool-workers/config';

const root = import.meta.dirname;

export default defineWorkersConfig(async () => {
  const migrations = await readD1Migrations(path.join(root, 'migrations'));
  return {
    test: {
      include: ['src/**/*.test.ts'],
      globalSetup: ['./test/fake-backend.global-setup.ts'],
      setupFiles: ['./test/apply-migrations.ts'],
      poolOptions: {
        workers: ({ inject }) => ({
          wrangler: { configPath: path.join(root, '..', 'wrangler.toml') },
          miniflare: {
            // A real rate-limiting binding with a small limit, swapped in for KEY_RATE_LIMITER by one test.
            ratelimits: { TEST_RATE_LIMITER: { simple: { limit: 3, period: 60 } } },
            // A second local D1 standing in for a read replica that lags the primary (test/replication.ts).
            d1Databases: { TEST_REPLICA: { id: 'iris-edge-test-replica' } },
            bindings: {
              TEST_MIGRATIONS: migrations,
              ADMIN_TOKEN: 'test-admin-token-0123456789abcdef',
              BACKEND_URL_CN_EAST: inject('backendCnEast'),
              BACKEND_URL_AP_SOUTHEAST: inject('backendApSoutheast'),
              CLOSED_BACKEND_URL: inject('closedBackend'),
              INTERNAL_SECRET_CN_EAST: 'test-secret-cn-east',
              INTERNAL_SECRET_AP_SOUTHEAST: 'test-secret-ap-southeast',
              SECRETS_MASTER_KEY: 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
            },
          },
        }),
      },
    },
  };
});
