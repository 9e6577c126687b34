/**
 * Query parameters of the record-browsing extension (`/iris/{kind}/{id}/records`): every value is bounded
 * and checked before any SQL runs; anything else is refused with 400/5001.
 */
import { ApiError } from '@iris/shared';

export const SET_KINDS = ['image_sets', 'product_sets', 'training_sets'] as const;
export type BrowseKind = (typeof SET_KINDS)[number];

export const RECORD_STATUSES = ['pending', 'downloaded', 'failed'] as const;
export type RecordStatus = (typeof RECORD_STATUSES)[number];

export const THUMBNAIL_SIZES = [64, 128, 256, 512] as const;
export type ThumbnailSize = (typeof THUMBNAIL_SIZES)[number];

/** Records per page at most, and the deepest row a page may reach (OFFSET stays cheap on the browse index). */
export const MAX_PAGE_COUNT = 100;
export const MAX_OFFSET = 100_000;
const MAX_DIGITS = 7;

export interface BrowseQuery {
  page: number;
  count: number;
  status: RecordStatus | null;
}

function smallInteger(name: string, raw: string | null, fallback: number, min: number, max: number): number {
  if (raw === null) return fallback;
  if (raw.length > MAX_DIGITS || !/^\d+$/.test(raw)) throw new ApiError('invalidData', `${name} must be an integer from ${min} to ${max}`);
  const value = Number(raw);
  if (value < min || value > max) throw new ApiError('invalidData', `${name} must be an integer from ${min} to ${max}`);
  return value;
}

export function parseBrowseQuery(search: URLSearchParams): BrowseQuery {
  const count = smallInteger('count', search.get('count'), 24, 1, MAX_PAGE_COUNT);
  const page = smallInteger('page', search.get('page'), 0, 0, Math.floor(MAX_OFFSET / count));
  const rawStatus = search.get('status');
  if (rawStatus !== null && !(RECORD_STATUSES as readonly string[]).includes(rawStatus)) {
    throw new ApiError('invalidData', `status must be one of ${RECORD_STATUSES.join(', ')}`);
  }
  return { page, count, status: rawStatus as RecordStatus | null };
}

export function parseThumbnailSize(search: URLSearchParams): ThumbnailSize {
  const raw = search.get('size');
  if (raw === null) return 256;
  const size = THUMBNAIL_SIZES.find((s) => String(s) === raw);
  if (!size) throw new ApiError('invalidData', `size must be one of ${THUMBNAIL_SIZES.join(', ')}`);
  return size;
}

/** A record id as the listing gives it: a positive integer of at most 18 digits (fits a bigint). */
export function parseRecordId(raw: string): string {
  if (!/^[1-9]\d{0,17}$/.test(raw)) throw new ApiError('invalidData', 'record id must be a positive integer');
  return raw;
}

export function isBrowseKind(value: string): value is BrowseKind {
  return (SET_KINDS as readonly string[]).includes(value);
}
