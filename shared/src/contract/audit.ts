/**
 * Iris extension: the audit log (admin actions, key changes and deletes), read by an account for its own
 * entries (`/iris/audit`, scope `admin-of-account`) and by the operator for all (`/admin/audit`).
 */
import { z } from 'zod';
import { intText, op, requestId, timestamp } from './common.js';

export const AuditEntry = z.object({
  id: z.string(),
  time: timestamp,
  account_id: z.number().int().nullable(),
  actor: z.enum(['key', 'operator']),
  key_ref: z.string().nullable().describe('the calling key (actor key)'),
  request_id: requestId.describe('the id of the call that made the change'),
  method: z.string(),
  path: z.string(),
  target_id: z.string().nullable(),
  status: z.number().int().describe('HTTP status of the answer'),
  outcome: z.enum(['ok', 'refused', 'failed']),
  detail: z.record(z.unknown()).nullable().describe('what changed (never a secret)'),
});
export const AuditPage = z.object({
  request_id: requestId,
  results: z.array(AuditEntry).describe('newest first'),
  next_cursor: z.string().nullable().describe('pass as cursor for the next (older) page; null at the end'),
});

const timeBound = z.string().max(40).describe('UTC time %Y-%m-%dT%H:%M:%SZ or a date YYYY-MM-DD');
export const AuditQuery = z.object({
  from: timeBound.optional(),
  to: timeBound.optional().describe('exclusive'),
  cursor: z.string().max(40).optional(),
  limit: intText.optional().describe('1..200, default 50'),
});
export const AdminAuditQuery = AuditQuery.extend({ account_id: z.string().max(20).optional() });

export const auditOperations = [
  op({
    id: 'listAudit', method: 'get', path: '/iris/audit', servedBy: 'edge', tag: 'Iris extensions', extension: 'iris', errors: 'resource',
    summary: "The account's audit log: admin actions, key changes and deletes, newest first", errorCodes: ['badRequest', 'scopeForbidden'], query: AuditQuery, response: AuditPage,
  }),
];
export const adminAuditOperations = [
  op({
    id: 'adminListAudit', method: 'get', path: '/admin/audit', servedBy: 'edge', tag: 'Admin', extension: 'iris', errors: 'resource', admin: true,
    summary: 'The audit log of every account (account_id filters), newest first', query: AdminAuditQuery, response: AuditPage,
  }),
];
