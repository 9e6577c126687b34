/** Response mapping of data sets: the specification's fields and its status table. */
import type { z } from 'zod';
import { formatTime, type DataSet, type DataSetResponse } from '@iris/shared';
import type { DataSetRow } from './set.repo.js';

export type SetStatus = 'not-downloaded' | 'downloading' | 'downloaded';

/**
 * The specification's state table: not-downloaded while no image has been downloaded (also an empty set),
 * downloaded once every image is downloaded or failed, downloading in between.
 */
export function setStatus(counts: { n_items: number; n_downloaded: number; n_failed: number }): SetStatus {
  if (counts.n_items === 0) return 'not-downloaded';
  if (counts.n_downloaded + counts.n_failed >= counts.n_items) return 'downloaded';
  return counts.n_downloaded === 0 ? 'not-downloaded' : 'downloading';
}

export type DataSetObject = z.input<typeof DataSet>;

/** The image-set / training-set object; `requestId` is left out inside list results. */
export function dataSetObject(row: DataSetRow): DataSetObject;
export function dataSetObject(row: DataSetRow, requestId: string): z.input<typeof DataSetResponse>;
export function dataSetObject(row: DataSetRow, requestId?: string): DataSetObject {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    created_at: formatTime(row.created_at),
    modified_at: formatTime(row.modified_at),
    creator_id: Number(row.account_id),
    n_downloaded: row.n_downloaded,
    n_failed: row.n_failed,
    n_items: row.n_items,
    status: setStatus(row),
    ...(requestId !== undefined ? { request_id: requestId } : {}),
  };
}
