/**
 * A set's records as JSON lines, read page by page (keyset) while the answer is sent: one page in memory at
 * a time, the next read only when the client has taken the last (the stream's back-pressure), and none once
 * the client went away (the stream is destroyed, the generator returns).
 */
import { formatTime } from '@iris/shared';
import type { Queryable } from '../data-sets/set.repo.js';
import type { RecordStatus } from '../set-records/set-records.params.js';
import { recordsAfter } from './export.repo.js';

export interface ExportPages {
  db: Queryable;
  setId: string;
  status: RecordStatus | null;
  pageRows: number;
  /** Told the records of each page read (metrics). */
  onPage?: (records: number) => void;
}

export async function* exportLines({ db, setId, status, pageRows, onPage }: ExportPages): AsyncGenerator<string> {
  let after = '0';
  for (;;) {
    const rows = await recordsAfter(db, setId, status, after, pageRows);
    onPage?.(rows.length);
    if (!rows.length) return;
    yield rows.map((r) => JSON.stringify({ ...r, updated_at: formatTime(r.updated_at) }) + '\n').join('');
    if (rows.length < pageRows) return;
    after = rows[rows.length - 1]!.id;
  }
}
