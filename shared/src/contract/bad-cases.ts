/** Reports of bad results (`/bad_cases/_0000204`), called by the released clients. */
import { z } from 'zod';
import { ANY_FORM, op, requestId, timestamp } from './common.js';

export const ReportBadCase = z
  .object({ service_id: z.string(), request_id: z.string().describe('the request_id of the call with the bad result'), description: z.string().optional(), details: z.string().optional() })
  .passthrough();
export const BadCase = z.object({
  id: z.string(),
  service_id: z.string(),
  reported_request_id: z.string(),
  description: z.string(),
  details: z.string(),
  status: z.string(),
  created_at: timestamp,
  request_id: requestId,
});

export const badCaseOperations = [
  op({
    id: 'reportBadCase', method: 'post', path: '/bad_cases/_0000204', servedBy: 'backend', tag: 'Bad cases', summary: 'Report a bad result', extension: 'clients', errors: 'resource',
    errorCodes: ['invalidData', 'badCaseQuota'], body: { schema: ReportBadCase, forms: ANY_FORM, required: true }, response: BadCase,
  }),
];
