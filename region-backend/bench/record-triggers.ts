/**
 * What each trigger of the download path costs per row, from PostgreSQL's own EXPLAIN ANALYZE (trigger time
 * and calls), for the statements one picture makes alone and for the same statements over a wave of pictures.
 * Runs in one transaction on a scratch set that is rolled back, so the database is left as it was.
 */
import pg from 'pg';
import { newResourceId } from '@iris/shared';
import { printTable } from '../../scripts/table.js';

interface Explained {
  'Execution Time': number;
  Triggers?: { 'Trigger Name': string; Time: number; Calls: number }[];
}

const WAVE = 256;
const SINGLES = 64;

/** The download path's writes, per row: one picture per statement, then one statement per wave. */
export async function recordTriggerCosts(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const totals = new Map<string, { ms: number; rows: number }>();
  const add = (label: string, explained: Explained, rows: number) => {
    const entry = (name: string, ms: number) => {
      const t = totals.get(name) ?? { ms: 0, rows: 0 };
      totals.set(name, { ms: t.ms + ms, rows: t.rows + rows });
    };
    entry(`${label}: whole statement`, explained['Execution Time']);
    for (const trigger of explained.Triggers ?? []) entry(`${label}: trigger ${trigger['Trigger Name']}`, trigger.Time);
  };
  const explain = async (sql: string, values: unknown[]) =>
    (await client.query<{ 'QUERY PLAN': Explained[] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, values)).rows[0]!['QUERY PLAN'][0]!;
  try {
    await client.query('BEGIN');
    const setId = newResourceId();
    const account = 999_000_001;
    await client.query(`INSERT INTO data_sets (id, account_id, kind, name) VALUES ($1, $2, 'image_set', 'trigger costs')`, [setId, account]);
    const ids = (await client.query<{ id: string }>(
      `INSERT INTO data_set_records (set_id, url) SELECT $1, 'http://bench.invalid/' || g FROM generate_series(1, $2) g RETURNING id`,
      [setId, SINGLES + WAVE],
    )).rows.map((r) => Number(r.id));
    await client.query(`INSERT INTO stored_blobs (blob_key, bytes) SELECT 'trigger-cost-' || id, 1000 FROM unnest($1::bigint[]) id`, [ids]);
    const claim = `UPDATE data_set_records SET status = 'downloading', attempts = attempts + 1, lease_until = now() + interval '1 minute' WHERE id = ANY($1::bigint[])`;
    const complete = `UPDATE data_set_records SET status = 'downloaded', blob_key = 'trigger-cost-' || id, width = 640, height = 480, lease_until = NULL WHERE id = ANY($1::bigint[])`;
    const remember = `INSERT INTO url_blobs (account_id, url, blob_key, width, height, bytes)
      SELECT $2, 'http://bench.invalid/' || id, 'trigger-cost-' || id, 640, 480, 1000 FROM unnest($1::bigint[]) id`;
    const steps: [string, string, (ids: number[]) => unknown[]][] = [
      ['claim (UPDATE data_set_records)', claim, (ids) => [ids]],
      ['URL cache (INSERT url_blobs)', remember, (ids) => [ids, account]],
      ['complete (UPDATE data_set_records)', complete, (ids) => [ids]],
    ];
    const singles = ids.slice(0, SINGLES);
    const wave = ids.slice(SINGLES);
    for (const [label, sql, values] of steps) {
      for (const id of singles) add(`one picture per statement, ${label}`, await explain(sql, values([id])), 1);
      add(`a wave of ${WAVE} per statement, ${label}`, await explain(sql, values(wave)), WAVE);
    }
  } finally {
    await client.query('ROLLBACK').catch(() => {});
    await client.end();
  }
  console.log(`\nPostgreSQL time per row of the download path's writes and their triggers (EXPLAIN ANALYZE, rolled back): ${SINGLES} pictures one per statement, then a wave of ${WAVE} in one statement.\n`);
  printTable(['statement / trigger', 'µs per row'], [...totals].map(([name, t]) => [name, (t.ms * 1000) / t.rows]));
}
