/**
 * A process holding the index writer claim of a cache directory (index-writer.test.ts): claims it, prints
 * `held` or `not held`, then keeps renewing until it is killed. Arguments: database URL, indexes directory,
 * the lease's time to live in ms.
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { IndexWriterClaim } from '../../src/domains/search-services/index-writer.js';

const [databaseUrl, indexesDir, ttl] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
const claim = new IndexWriterClaim({ pool, indexesDir: indexesDir!, holder: randomUUID(), log: Fastify().log, ttlMs: Number(ttl) });
process.stdout.write(`${(await claim.held()) ? 'held' : 'not held'}\n`);
setInterval(() => undefined, 60_000); // renews (unref'd timers) until killed
