/**
 * Iris extension: what an account used in a region, per day and per service (calls, pictures analysed,
 * pictures and bytes stored, inference seconds, batch lines), beside its quotas. Served by the region's
 * backend (`/iris/usage`); a region answers for itself (the edge routes by the address called).
 */
import { z } from 'zod';
import { QUOTA_FIELDS } from '../limits.js';
import { op, requestId } from './common.js';

/** The longest range one call may read, in days (both ends included). */
export const USAGE_MAX_DAYS = 366;

const day = z.string().max(10).describe('a UTC day, YYYY-MM-DD');

export const UsageCounters = z.object({
  calls: z.number().int().describe('API calls answered (any status)'),
  pictures_analysed: z.number().int().describe('pictures an analysis ran on (API calls and batch lines)'),
  pictures_stored: z.number().int().describe('pictures downloaded and stored (not those already stored for the account)'),
  bytes_stored: z.number().int().describe('bytes of those pictures'),
  inference_seconds: z.number().describe('time the account’s tasks ran on inference and decoding threads'),
  batch_lines: z.number().int().describe('batch task lines finished (answered or failed)'),
});

export const UsageDay = UsageCounters.extend({
  day: z.string().describe('UTC day, YYYY-MM-DD'),
  service: z.string().describe('the service id a call named, else the API family (image_sets, product_sets, downloads, ...)'),
});

const quotaValues = z.object(
  Object.fromEntries(QUOTA_FIELDS.map((f) => [f.api, z.number().int()])) as Record<(typeof QUOTA_FIELDS)[number]['api'], z.ZodNumber>,
);

export const UsageReport = z.object({
  request_id: requestId,
  region: z.string(),
  from: z.string(),
  to: z.string(),
  /** Rows for each day and service with any use, ordered by day then service. */
  results: z.array(UsageDay),
  /** The same counters summed over the range. */
  totals: UsageCounters,
  /** What the account holds in this region now (against its quotas). */
  stored: z.object({ records: z.number().int(), bytes: z.number().int() }),
  quotas: quotaValues,
});

const tag = 'Iris extensions';
export const usageOperations = [
  op({
    id: 'getUsage', method: 'get', path: '/iris/usage', servedBy: 'backend', tag, extension: 'iris', errors: 'resource',
    summary: "The calling account's usage in this region per day and service, with its quotas (counters reach it within the flush interval)",
    errorCodes: ['invalidData'],
    query: z.object({
      from: day.optional().describe('first day (default: 29 days before `to`)'),
      to: day.optional().describe(`last day (default: today, UTC); at most ${USAGE_MAX_DAYS} days in all`),
    }),
    response: UsageReport,
  }),
];
