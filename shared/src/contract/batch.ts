/** Batch tasks (`/batch/_1000001`): prepare, apply, revoke, progress, list, and the result files. */
import { z } from 'zod';
import { ANY_FORM, op, pathParams, requestId, timestamp, upload } from './common.js';

const BASE = '/batch/_1000001';
const ok = <T extends z.ZodTypeAny>(data: T) => z.object({ data, is_error: z.literal(0), request_id: requestId });

export const BatchState = z.enum(['RECEIVED', 'PENDING', 'STARTED', 'SUCCESS', 'REVOKED', 'FAILURE']);
export const PrepareTask = z.object({ service_id: z.string(), urls: upload.describe('one URL per line, at least two different URLs') }).passthrough();
export const ApplyTask = z.object({ task_id: z.string() }).passthrough();
export type PrepareTaskInput = z.output<typeof PrepareTask>;
export type ApplyTaskInput = z.output<typeof ApplyTask>;
const bound = z.string().describe('UTC time, %Y-%m-%dT%H:%M:%SZ, or a date %Y-%m-%d (its midnight UTC)');
export const ListTasks = z.object({ start: bound.optional(), end: bound.optional() }).passthrough();

export const TaskSummary = z.object({
  estimated_processing_time: z.number().int(),
  estimated_waiting_time: z.number().int(),
  state: BatchState,
  task_id: z.string(),
  total: z.number().int(),
});
/**
 * Fields by state: always csv … total; SUCCESS adds download_urls and success; PENDING the estimates; STARTED
 * estimated_processing_time and success. Keys in byte order, as the serializer writes them.
 */
export const TaskDetails = z.object({
  csv: z.string().describe('link to the input file'),
  download_urls: z.array(z.string()).optional(),
  estimated_processing_time: z.number().int().optional(),
  estimated_waiting_time: z.number().int().optional(),
  received_time: timestamp,
  service_id: z.string(),
  state: BatchState,
  success: z.number().int().optional(),
  task_id: z.string(),
  total: z.number().int(),
});

export const BatchServicesResponse = ok(z.array(z.string()));
export const TaskSummaryResponse = ok(TaskSummary);
export const TaskDetailsResponse = ok(TaskDetails);
export const TaskMapResponse = ok(z.record(TaskDetails).describe('task_id → task details'));
export const RevokeResponse = ok(z.object({ code: z.literal(200001), args: z.array(z.string()) }));

const tag = 'Batch tasks';
const byTask = pathParams('task_id');
export const batchOperations = [
  op({ id: 'listBatchServices', method: 'get', path: `${BASE}/services`, servedBy: 'backend', tag, summary: 'Services batch tasks can run', errors: 'batch', response: BatchServicesResponse }),
  op({
    id: 'prepareBatchTask', method: 'post', path: `${BASE}/task/prepare`, servedBy: 'backend', tag, summary: 'Create a batch task', errors: 'batch',
    errorCodes: ['batchServiceIdMissing', 'batchUrlsMissing', 'batchUrlsNotUtf8', 'batchUrlsEmpty', 'batchUrlsInvalid', 'batchServiceUnknown', 'batchServiceUnsupported', 'batchDailyLimit'],
    body: { schema: PrepareTask, forms: ['multipart', 'form', 'json'], required: true }, fieldErrors: { service_id: 'batchServiceIdMissing', urls: 'batchUrlsMissing' }, response: TaskSummaryResponse,
  }),
  op({
    id: 'applyBatchTask', method: 'post', path: `${BASE}/task/apply`, servedBy: 'backend', tag, summary: 'Start a batch task', errors: 'batch',
    errorCodes: ['batchTaskUnknown', 'batchDailyLimit', 'batchAlreadyRunning'], body: { schema: ApplyTask, forms: ANY_FORM, required: true }, fieldErrors: { task_id: 'batchTaskUnknown' }, response: TaskSummaryResponse,
  }),
  op({ id: 'revokeBatchTask', method: 'post', path: `${BASE}/task/revoke/{task_id}`, servedBy: 'backend', tag, summary: 'Cancel a pending batch task', errors: 'batch', errorCodes: ['batchTaskUnknown', 'batchNotPending'], params: byTask, response: RevokeResponse }),
  op({ id: 'getBatchTask', method: 'get', path: `${BASE}/task/info/{task_id}`, servedBy: 'backend', tag, summary: 'Progress of a batch task', errors: 'batch', errorCodes: ['batchTaskUnknown'], params: byTask, response: TaskDetailsResponse }),
  op({
    id: 'listBatchTasks', method: 'get', path: `${BASE}/tasks`, servedBy: 'backend', tag, summary: 'Batch tasks received in [start, end)', errors: 'batch',
    query: ListTasks, body: { schema: ListTasks, forms: ANY_FORM }, response: TaskMapResponse,
  }),
  op({
    id: 'getBatchFile', method: 'get', path: `${BASE}/results/{task_id}/{file}`, servedBy: 'backend', tag, summary: 'Download the input or a result file of a task (signed link)', extension: 'iris', errors: 'batch',
    errorCodes: ['batchTaskUnknown', 'notFound'], params: pathParams('task_id', 'file'), query: z.object({ expires: z.string().optional(), signature: z.string().optional() }),
    response: z.string().describe('input URLs (text) or result JSON lines'), responseMediaType: 'application/x-ndjson',
  }),
];
