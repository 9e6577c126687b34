/**
 * Iris extension: every record of a set as JSON lines, streamed (one `SetRecord` per line, in record order,
 * with status and failure reason), however many there are.
 */
import { z } from 'zod';
import { op, requestId, timestamp } from './common.js';
import { RecordStatus, SetKind } from './set-records.js';

const tag = 'Iris extensions';
export const exportOperations = [
  op({
    id: 'exportSetRecords', method: 'get', path: '/iris/{kind}/{id}/export', route: '/iris/:kind/:id/export', servedBy: 'backend', tag, extension: 'iris', errors: 'resource',
    summary: "Every record of a set as JSON lines (application/x-ndjson, one SetRecord a line, record order), streamed",
    errorCodes: ['invalidData', 'setNotFound', 'productSetNotFound', 'imageSetForbidden', 'productSetForbidden'],
    params: z.object({ kind: SetKind, id: z.string().min(1).max(128) }),
    query: z.object({ status: RecordStatus.optional() }),
    response: z.string().describe('JSON lines: one SetRecord (see listSetRecords) per line'), responseMediaType: 'application/x-ndjson',
  }),
];

/** The kinds whose full state support can read (the path's first parameter). */
export const SupportKind = z.enum(['batch_tasks', 'search_services', 'custom_services']);
export const SUPPORT_MAX_FAILURES = 20;

/** A task's or a service's state for support, bounded in size: its settings, its counters, its latest failures. */
export const SupportState = z.object({
  request_id: requestId,
  kind: SupportKind,
  id: z.string(),
  generated_at: timestamp,
  configuration: z.record(z.unknown()).describe('the settings and state fields of the task or service'),
  counters: z.record(z.number()).describe('lines, records, index entries, bytes (by kind)'),
  recent_failures: z
    .array(z.object({ at: timestamp.nullable(), ref: z.string().describe('the line or record that failed'), message: z.string() }))
    .describe(`at most ${SUPPORT_MAX_FAILURES}, latest first`),
});

export const supportOperations = [
  op({
    id: 'getSupportState', method: 'get', path: '/iris/{kind}/{id}/state', route: '/iris/:kind/:id/state', servedBy: 'backend', tag, extension: 'iris', errors: 'resource',
    summary: "A batch task's or a service's full state for support as one JSON document: configuration, counters, recent failures (bounded)",
    errorCodes: ['invalidData', 'serviceNotFound', 'batchTaskUnknown'],
    params: z.object({ kind: SupportKind, id: z.string().min(1).max(128) }),
    response: SupportState,
  }),
];
