/** Response mapping of search services: the specification's search service object. */
import type { z } from 'zod';
import { formatTime, formatTimeOrNull, type SearchService, type SearchServiceResponse } from '@iris/shared';
import type { SearchServiceRow } from './search-service.repo.js';

/** The `type` of product-set services (the specification shows the field only in that variant). */
export const PRODUCT_SERVICE_TYPE = 1;

export type SearchServiceObject = z.input<typeof SearchService>;

/** indexed / downloaded images of the set, in [0, 1] (0 for a set with nothing downloaded). */
export function indexedRatio(nIndexed: number, nDownloaded: number): number {
  if (nDownloaded <= 0) return 0;
  return Math.min(1, Math.round((nIndexed / nDownloaded) * 10_000) / 10_000);
}

/** The service object; `requestId` is left out inside list results. */
export function searchServiceObject(row: SearchServiceRow): SearchServiceObject;
export function searchServiceObject(row: SearchServiceRow, requestId: string, now?: Date): z.input<typeof SearchServiceResponse>;
export function searchServiceObject(row: SearchServiceRow, requestId?: string, now: Date = new Date()): SearchServiceObject {
  return {
    id: row.id,
    name: row.name,
    scenario: row.scenario,
    image_set_id: row.set_id,
    ...(row.product_set_id ? { product_set_id: row.product_set_id } : {}),
    created_at: formatTime(row.created_at),
    creator_id: Number(row.account_id),
    // While an index is rebuilt under a new embedder, the share already embedded with it (the old index serves).
    indexed_ratio: indexedRatio(row.next_pipeline ? row.n_rebuilt : row.n_indexed, row.n_downloaded),
    n_indexed: row.n_indexed,
    n_first_pass_only: row.n_first_pass_only,
    last_indexed_time: formatTimeOrNull(row.indexed_at),
    last_updated_at: formatTimeOrNull(row.updated_at),
    status: 'running',
    // Seconds in the current status; running is the only status and starts at creation.
    status_duration: Math.max(0, Math.floor((now.getTime() - row.created_at.getTime()) / 1000)),
    ...(row.kind === 'product_set' ? { type: PRODUCT_SERVICE_TYPE } : {}),
    ...(requestId !== undefined ? { request_id: requestId } : {}),
  };
}
