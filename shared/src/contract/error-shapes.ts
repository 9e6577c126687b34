/** The specification's three error bodies (see `errors.ts` for the codes and the builder). */
import { z } from 'zod';
import { requestId } from './common.js';

/** Data sets, product sets, training, search services and queries. */
export const ResourceError = z.object({
  error_code: z.number().int(),
  message: z.string(),
  request_id: requestId,
});

/** Detect, classify, colour, fashion and custom-classifier inference (colour and fashion errors carry no error_code). */
export const AnalysisError = z.object({
  data: z
    .object({
      is_err: z.literal(1),
      message: z.string(),
      msg: z.string().describe('same text as message (the classify example of the specification uses msg)'),
      request_id: requestId,
      time: z.number().describe('seconds spent'),
      error_code: z.number().int().optional(),
    })
    .passthrough(),
  status: z.number().int().describe('HTTP status'),
});

/** Batch tasks; invalid URL lists add urls_duplicated and urls_verify_failed. */
export const BatchError = z.object({
  data: z
    .object({
      error_code: z.number().int(),
      message: z.string(),
      urls_duplicated: z.record(z.array(z.number().int())).optional().describe('URL → indexes of the lines holding it'),
      urls_verify_failed: z.record(z.string()).optional().describe('line index → invalid URL'),
    })
    .passthrough(),
  is_error: z.literal(1),
  request_id: requestId,
});

export const ERROR_SHAPES = { resource: ResourceError, analysis: AnalysisError, batch: BatchError } as const;
