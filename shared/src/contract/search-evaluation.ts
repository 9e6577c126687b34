/**
 * Iris extension: a search service measures itself. `POST /customer_services/_0000172/{service_id}/evaluation`
 * starts a background evaluation (a sample of the service's own pictures, edited the ways shoppers' queries
 * are, searched through the customers' path); `GET` on the same path polls its state, progress and report.
 */
import { z } from 'zod';
import { intText, op, pathParams, requestId, timestamp } from './common.js';

/** Edits an evaluation can apply (the generators of `region-backend/src/images/query-edits.ts`). */
export const EVALUATION_EDITS = ['crop50', 'mirror-crop50', 'thumb128', 'grey', 'jpeg15', 'text', 'frame', 'thumb96', 'rotate10', 'screenshot'] as const;
export type EvaluationEdit = (typeof EVALUATION_EDITS)[number];
/** Applied when the request names none: crop, mirror, thumbnail, grey-scale, JPEG, text overlay, framing. */
export const DEFAULT_EVALUATION_EDITS: readonly EvaluationEdit[] = ['crop50', 'mirror-crop50', 'thumb128', 'grey', 'jpeg15', 'text', 'frame'];
/** Pictures sampled from the service's index. */
export const EVALUATION_SAMPLE = { default: 50, max: 500 } as const;

export const StartEvaluation = z
  .object({
    sample_size: intText.optional().describe(`pictures sampled from the index, 1..${EVALUATION_SAMPLE.max}, default ${EVALUATION_SAMPLE.default}`),
    edits: z
      .union([z.array(z.string().max(64)).max(32), z.string().max(1024)])
      .optional()
      .describe(`edits to apply (a list, or comma-separated): ${EVALUATION_EDITS.join(', ')}; default ${DEFAULT_EVALUATION_EDITS.join(', ')}`),
  })
  .passthrough();
export type StartEvaluationInput = z.output<typeof StartEvaluation>;

export const EvaluationState = z.enum(['none', 'queued', 'running', 'done', 'failed']);
const share = z.number().describe('in [0, 1], 4 decimals');
export const EvaluationEditReport = z.object({ edit: z.string(), queries: z.number().int(), recall_at_1: share, recall_at_10: share });
export const EvaluationReport = z.object({
  records: z.number().int().describe('pictures sampled'),
  queries: z.number().int().describe('queries answered so far'),
  per_edit: z.array(EvaluationEditReport),
  overall: z.object({ recall_at_1: share, recall_at_10: share }),
  latency_ms: z.object({ p50: z.number(), p95: z.number() }).describe('query latency in the backend (decode, embed, index, re-rank), at background priority'),
  rerank_candidates: z.number().int().describe('candidates verified geometrically per query'),
});
export const SearchEvaluation = z.object({
  request_id: requestId,
  service_id: z.string(),
  state: EvaluationState,
  sample_size: z.number().int(),
  edits: z.array(z.string()),
  progress: z.object({ done: z.number().int(), total: z.number().int() }).describe('queries answered / queries planned'),
  created_at: timestamp.nullable(),
  started_at: timestamp.nullable(),
  finished_at: timestamp.nullable(),
  message: z.string().nullable().describe('why the evaluation failed'),
  report: EvaluationReport.nullable().describe('recall and latency of the queries answered so far'),
});
export type SearchEvaluationObject = z.output<typeof SearchEvaluation>;

const tag = 'Iris extensions';
const path = '/customer_services/_0000172/{service_id}/evaluation';
export const searchEvaluationOperations = [
  op({
    id: 'startSearchEvaluation', method: 'post', path, servedBy: 'backend', tag, extension: 'iris', errors: 'resource',
    summary: "Start a self-evaluation of a search service: recall@1/@10 per edit of a sample of its own pictures, and query latency",
    errorCodes: ['invalidData', 'serviceNotFound', 'evaluationRunning'], params: pathParams('service_id'),
    body: { schema: StartEvaluation, forms: ['json', 'form', 'multipart'] }, response: SearchEvaluation,
  }),
  op({
    id: 'getSearchEvaluation', method: 'get', path, servedBy: 'backend', tag, extension: 'iris', errors: 'resource',
    summary: "The service's latest self-evaluation: state, progress and report (state none before the first)",
    errorCodes: ['serviceNotFound'], params: pathParams('service_id'), response: SearchEvaluation,
  }),
];
