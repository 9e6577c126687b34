/**
 * Iris extension: every record of a set as JSON lines, streamed (one `SetRecord` per line, in record order,
 * with status and failure reason), however many there are.
 */
import { z } from 'zod';
import { op } from './common.js';
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
