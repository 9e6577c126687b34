/**
 * Bounds what batch tasks keep: a task prepared and never applied expires after IRIS_BATCH_PREPARED_HOURS
 * (FAILURE, its URL list and lines deleted), and a finished task (SUCCESS, FAILURE, REVOKED) is deleted —
 * row, lines and files — IRIS_BATCH_RETENTION_DAYS after it finished. Safe with several processes at once:
 * every step claims its rows with one statement (an expiring task is claimed by `state = 'RECEIVED'`, a
 * deleted one by its DELETE), and removing a folder twice is harmless.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { deleteItems } from './batch-item.repo.js';
import { INPUT_FILE } from './batch-links.js';

/** Tasks handled per statement. */
const STEP = 200;
/** A task folder is written before its row is committed: one without a row is left alone this long. */
const ORPHAN_AGE_MS = 3_600_000;

export interface SweepOptions {
  preparedMs: number;
  retentionMs: number;
  /** `<dataDir>/batch`, one folder per task. */
  filesDir: string;
  now?: Date;
}

export async function sweepBatchTasks(pool: pg.Pool, options: SweepOptions): Promise<{ expired: number; deleted: number; orphans: number }> {
  const now = options.now ?? new Date();
  let expired = 0;
  let deleted = 0;
  for (;;) {
    const rows = await pool.query<{ id: string }>(
      `UPDATE batch_tasks SET state = 'FAILURE', finished_at = $1, input_bytes = 0,
              message = 'expired: not applied within ' || $3::text || ' hours of being prepared'
       WHERE id IN (SELECT id FROM batch_tasks WHERE state = 'RECEIVED' AND received_at < $2 ORDER BY received_at LIMIT ${STEP} FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      [now, new Date(now.getTime() - options.preparedMs), String(+(options.preparedMs / 3_600_000).toFixed(3))],
    );
    for (const { id } of rows.rows) {
      await deleteItems(pool, id);
      await rm(path.join(path.join(options.filesDir, id), INPUT_FILE), { force: true });
    }
    expired += rows.rows.length;
    if (rows.rows.length < STEP) break;
  }
  for (;;) {
    // Lines go with the row (ON DELETE CASCADE); the files after the row, so a crash in between leaves only a
    // folder no task names (removed by the next sweep of orphans below).
    const rows = await pool.query<{ id: string }>(
      `DELETE FROM batch_tasks
       WHERE id IN (SELECT id FROM batch_tasks WHERE state IN ('SUCCESS', 'FAILURE', 'REVOKED') AND finished_at < $1 ORDER BY finished_at LIMIT ${STEP} FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      [new Date(now.getTime() - options.retentionMs)],
    );
    for (const { id } of rows.rows) await rm(path.join(options.filesDir, id), { recursive: true, force: true });
    deleted += rows.rows.length;
    if (rows.rows.length < STEP) break;
  }
  return { expired, deleted, orphans: await removeOrphanFolders(pool, options.filesDir, now) };
}

/** Folders of tasks that have no row (a prepare that died before recording its task, a sweep cut short). */
async function removeOrphanFolders(pool: pg.Pool, filesDir: string, now: Date): Promise<number> {
  const names = await readdir(filesDir).catch(() => [] as string[]);
  let removed = 0;
  for (let i = 0; i < names.length; i += STEP) {
    const chunk = names.slice(i, i + STEP);
    const known = new Set((await pool.query<{ id: string }>('SELECT id FROM batch_tasks WHERE id = ANY($1)', [chunk])).rows.map((r) => r.id));
    for (const name of chunk) {
      if (known.has(name)) continue;
      const info = await stat(path.join(filesDir, name)).catch(() => null);
      if (!info || now.getTime() - info.mtimeMs < ORPHAN_AGE_MS) continue;
      await rm(path.join(filesDir, name), { recursive: true, force: true });
      removed++;
    }
  }
  return removed;
}
