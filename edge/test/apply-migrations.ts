import { applyD1Migrations, env } from 'cloudflare:test';

// Setup files run outside isolated storage, so the schema is there for every test of the file.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
await applyD1Migrations(env.TEST_REPLICA, env.TEST_MIGRATIONS);
