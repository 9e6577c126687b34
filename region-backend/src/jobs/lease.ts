/**
 * Leases in PostgreSQL (table `leases`): a named claim held by one holder until `expires_at`, renewed by the
 * holder while it lives. Expiry uses the database's clock only, so the hosts' clocks never matter. A holder
 * that is killed stops renewing: its lease expires after at most `ttlMs`, and the next `tryAcquire` of another
 * holder takes it.
 */
import type pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import { PeriodicTask } from './periodic-task.js';

type Queryable = Pick<pg.Pool, 'query'>;

/** Takes or renews `name` for `holder` unless another holder's lease is still running; true when held. */
export async function tryAcquireLease(db: Queryable, name: string, holder: string, ttlMs: number): Promise<boolean> {
  const { rows } = await db.query<{ holder: string }>(
    `INSERT INTO leases (name, holder, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))
     ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
       WHERE leases.holder = EXCLUDED.holder OR leases.expires_at <= now()
     RETURNING holder`,
    [name, holder, ttlMs / 1000],
  );
  return rows[0]?.holder === holder;
}

export async function releaseLease(db: Queryable, name: string, holder: string): Promise<void> {
  await db.query('DELETE FROM leases WHERE name = $1 AND holder = $2', [name, holder]);
}

/** Names (with `prefix`) of the leases that have not expired. */
export async function liveLeases(db: Queryable, prefix: string): Promise<Set<string>> {
  const { rows } = await db.query<{ name: string }>('SELECT name FROM leases WHERE starts_with(name, $1) AND expires_at > now()', [prefix]);
  return new Set(rows.map((r) => r.name));
}

/** Forgets leases (with `prefix`) expired for longer than `olderThanMs`: holders killed long ago. */
export async function forgetExpiredLeases(db: Queryable, prefix: string, olderThanMs: number): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM leases WHERE starts_with(name, $1) AND expires_at < now() - make_interval(secs => $2)', [prefix, olderThanMs / 1000]);
  return rowCount ?? 0;
}

export interface LeaseKeeperOptions {
  pool: Queryable;
  name: string;
  holder: string;
  ttlMs: number;
  log: FastifyBaseLogger;
}

/**
 * Holds a lease for as long as it can: tries to take it at once, then every third of its time to live
 * renews it (or, not holding it, tries to take it over). `held` is false as soon as the lease may have
 * expired without this process knowing it renewed it (a renewal that failed or took too long).
 */
export class LeaseKeeper {
  private heldUntil = 0;
  private readonly task: PeriodicTask;
  /** Settles after the first attempt. */
  readonly ready: Promise<void>;
  private firstAttempt!: () => void;

  constructor(private readonly options: LeaseKeeperOptions) {
    this.ready = new Promise((resolve) => (this.firstAttempt = resolve));
    this.task = new PeriodicTask({
      name: `lease ${options.name}`,
      intervalMs: Math.max(50, Math.floor(options.ttlMs / 3)),
      log: options.log,
      run: () => this.attempt().finally(this.firstAttempt),
    });
  }

  get held(): boolean {
    return performance.now() < this.heldUntil;
  }

  start(): void {
    this.task.start();
  }

  /** Stops renewing and gives the lease back (another holder may take it at once). */
  async stop(): Promise<void> {
    await this.task.stop();
    this.firstAttempt();
    this.heldUntil = 0;
    await releaseLease(this.options.pool, this.options.name, this.options.holder).catch((err: unknown) => this.options.log.warn({ err, lease: this.options.name }, 'giving a lease back failed (it expires by itself)'));
  }

  /** A failed attempt leaves `heldUntil` as it was: the lease runs at most until the last renewal's expiry. */
  private async attempt(): Promise<void> {
    const started = performance.now();
    const held = await tryAcquireLease(this.options.pool, this.options.name, this.options.holder, this.options.ttlMs);
    this.heldUntil = held ? started + this.options.ttlMs : 0;
  }
}
