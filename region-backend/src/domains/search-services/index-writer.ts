/**
 * One writer per index directory: several processes may share a cache directory (on one host, or on
 * several through a network file system); the holder of the lease `index-writer:<cache id>` in PostgreSQL
 * saves index files, the others only read them. The cache id is the directory's own token
 * (util/cache-identity.ts), so every process that mounts it agrees whatever its path. A holder that dies
 * stops renewing: its lease expires after `ttlMs`, and the next renewal round of another process takes it.
 */
import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import { LeaseKeeper } from '../../jobs/lease.js';
import { cacheIdentity } from '../../util/cache-identity.js';

/** Time to live of the writer lease; renewed every third of it. */
export const INDEX_WRITER_TTL_MS = 30_000;

export interface IndexWriterClaimOptions {
  pool: Pick<pg.Pool, 'query'>;
  indexesDir: string;
  /** This process's identity (the lease's holder). */
  holder: string;
  log: FastifyBaseLogger;
  ttlMs?: number;
}

export class IndexWriterClaim {
  private keeper: Promise<LeaseKeeper> | null = null;

  constructor(private readonly options: IndexWriterClaimOptions) {}

  /** Whether this process holds the directory now (starts claiming it at the first call). */
  async held(): Promise<boolean> {
    this.keeper ??= cacheIdentity(this.options.indexesDir).then((id) => {
      const keeper = new LeaseKeeper({
        pool: this.options.pool,
        name: `index-writer:${id}`,
        holder: this.options.holder,
        ttlMs: this.options.ttlMs ?? INDEX_WRITER_TTL_MS,
        log: this.options.log,
      });
      keeper.start();
      return keeper;
    });
    const keeper = await this.keeper;
    await keeper.ready;
    return keeper.held;
  }

  async release(): Promise<void> {
    const keeper = await this.keeper?.catch(() => null);
    await keeper?.stop();
  }
}
