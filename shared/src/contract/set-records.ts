/**
 * Iris extension: browsing a set's records with their download state and failure reason (`last_error`),
 * served by the backend's set-records domain (`/iris/{kind}/{id}/records`), used by the web console and the CLI.
 */
import { z } from 'zod';
import { intText, op, pathParams, requestId, timestamp } from './common.js';

export const RecordStatus = z.enum(['pending', 'downloaded', 'failed']);
export const SetRecord = z.object({
  id: z.string(),
  url: z.string(),
  meta: z.string().nullable(),
  tags: z.array(z.string()).nullable(),
  label: z.string().nullable(),
  product_id: z.string().nullable(),
  price: z.string().nullable(),
  keywords: z.string().nullable(),
  status: RecordStatus,
  last_error: z.string().nullable().describe('why the download failed'),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  updated_at: timestamp,
});
export const SetRecordPage = z.object({
  request_id: requestId,
  page: z.number().int(),
  count: z.number().int(),
  total: z.number().int().describe('records matching the filter'),
  n_items: z.number().int(),
  n_downloaded: z.number().int(),
  n_failed: z.number().int(),
  results: z.array(SetRecord),
});
export const LabelCounts = z.object({
  request_id: requestId,
  results: z.array(z.object({ label: z.string(), total: z.number().int(), downloaded: z.number().int(), failed: z.number().int() })),
});

/** The set kinds whose records can be browsed (the path's first parameter). */
export const SetKind = z.enum(['image_sets', 'product_sets', 'training_sets']);
const kind = SetKind;
const setParams = z.object({ kind, id: z.string().min(1).max(128) });
const tag = 'Iris extensions';
/** What a set's record paths answer: a bad parameter, a set that is not there or not the caller's. */
const recordErrors = ['invalidData', 'setNotFound', 'productSetNotFound', 'imageSetForbidden', 'productSetForbidden'] as const;

export const setRecordOperations = [
  op({
    id: 'listSetRecords', method: 'get', path: '/iris/{kind}/{id}/records', route: '/iris/:kind/:id/records', servedBy: 'backend', tag, extension: 'iris', errors: 'resource',
    summary: "A set's records page by page with download state and failure reason (status=failed lists the failed downloads)",
    errorCodes: recordErrors, params: setParams,
    query: z.object({ page: intText.optional(), count: intText.optional().describe('1..100, default 24'), status: RecordStatus.optional() }), response: SetRecordPage,
  }),
  op({
    id: 'getRecordThumbnail', method: 'get', path: '/iris/{kind}/{id}/records/{record_id}/thumbnail', route: '/iris/:kind/:id/records/:record_id/thumbnail', servedBy: 'backend', tag, extension: 'iris', errors: 'resource',
    summary: 'Thumbnail of a stored picture', errorCodes: recordErrors, params: setParams.extend(pathParams('record_id').shape), query: z.object({ size: z.enum(['64', '128', '256', '512']).optional() }),
    response: z.string().describe('JPEG'), responseMediaType: 'image/jpeg',
  }),
  op({
    id: 'getSetLabels', method: 'get', path: '/iris/{kind}/{id}/labels', route: '/iris/:kind/:id/labels', servedBy: 'backend', tag, extension: 'iris', errors: 'resource',
    summary: 'Records per label (training sets)', errorCodes: recordErrors, params: setParams, response: LabelCounts,
  }),
];
