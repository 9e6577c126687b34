/** Signature nonces: each (key, nonce) is accepted once while its timestamp is within the allowed skew. */
import { sql } from 'drizzle-orm';
import type { Database } from '../db/database.js';

const PURGE_BATCH = 200;

/**
 * Records a nonce; false when it was already used and has not expired. One round trip: purge a batch of
 * expired rows, then an upsert that only overwrites an expired row. Times in milliseconds.
 */
export async function claimNonce(db: Database, keyId: string, nonce: string, expiresAt: number, now: number): Promise<boolean> {
  const d1 = db.$client;
  const [, claim] = await d1.batch([
    d1.prepare('DELETE FROM signature_nonces WHERE rowid IN (SELECT rowid FROM signature_nonces WHERE expires_at < ? LIMIT ?)').bind(now, PURGE_BATCH),
    d1
      .prepare(
        `INSERT INTO signature_nonces (key_id, nonce, expires_at) VALUES (?, ?, ?)
         ON CONFLICT (key_id, nonce) DO UPDATE SET expires_at = excluded.expires_at WHERE signature_nonces.expires_at < ?`,
      )
      .bind(keyId, nonce, expiresAt, now),
  ]);
  return (claim?.meta.changes ?? 0) > 0;
}

export async function countNonces(db: Database): Promise<number> {
  const row = await db.get<{ n: number }>(sql`SELECT count(*) AS n FROM signature_nonces`);
  return row?.n ?? 0;
}
