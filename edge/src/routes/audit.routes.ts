/**
 * `GET /iris/audit`: the account's own audit log (scope `admin-of-account`), and the operator's view of
 * every account's (`GET /admin/audit`, mounted by the admin API). Newest first, a page at a time.
 */
import { Hono, type Context } from 'hono';
import { AdminAuditQuery, ApiError, AuditQuery, formatTime, parseTimeOrDate } from '@iris/shared';
import type { z } from 'zod';
import { listAuditEntries, type AuditFilter } from '../audit/audit.repo.js';
import { database } from '../db/database.js';
import type { AuditEntry } from '../db/schema.js';
import type { AppEnv } from '../env.js';
import { json } from '../http/responses.js';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;
const CURSOR = /^\d{1,15}$/;

function entryJson(entry: AuditEntry) {
  let detail: Record<string, unknown> | null = null;
  try {
    detail = entry.detail ? (JSON.parse(entry.detail) as Record<string, unknown>) : null;
  } catch {
    detail = null;
  }
  return {
    id: String(entry.id),
    time: formatTime(entry.at),
    account_id: entry.accountId,
    actor: entry.actor,
    key_ref: entry.keyRef,
    request_id: entry.requestId,
    method: entry.method,
    path: entry.path,
    target_id: entry.targetId,
    status: entry.status,
    outcome: entry.outcome,
    detail,
  };
}

function bad(message: string): never {
  throw new ApiError('badRequest', message);
}

function timeBound(name: string, text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  const date = parseTimeOrDate(text);
  if (!date) bad(`${name}: a UTC time %Y-%m-%dT%H:%M:%SZ or a date YYYY-MM-DD`);
  return date.getTime();
}

/** The filter of a page from a query validated by the contract; entries past the retention are not shown. */
export function auditFilter(query: z.infer<typeof AuditQuery>, retentionMs: number, now = Date.now()): AuditFilter {
  const from = Math.max(timeBound('from', query.from) ?? 0, now - retentionMs);
  const to = timeBound('to', query.to);
  if (to !== undefined && to <= from) bad('to: must be after from');
  if (query.cursor !== undefined && !CURSOR.test(query.cursor)) bad('cursor: not a cursor of this log');
  const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) bad(`limit: 1..${MAX_LIMIT}`);
  return { from, ...(to !== undefined ? { to } : {}), ...(query.cursor !== undefined ? { beforeId: Number(query.cursor) } : {}), limit };
}

function parseQuery<T extends z.ZodTypeAny>(c: Context<AppEnv>, schema: T): z.infer<T> {
  const result = schema.safeParse(c.req.query());
  if (!result.success) bad(result.error.issues.map((i) => `${i.path.join('.') || 'query'}: ${i.message}`).join('; ').slice(0, 500));
  return result.data;
}

async function page(c: Context<AppEnv>, filter: AuditFilter) {
  const rows = await listAuditEntries(database(c.env.DB), filter);
  const more = rows.length > filter.limit;
  const shown = rows.slice(0, filter.limit);
  return json({ request_id: c.get('requestId'), results: shown.map(entryJson), next_cursor: more ? String(shown.at(-1)!.id) : null });
}

export const auditRoutes = new Hono<AppEnv>().get('/audit', async function listAudit(c) {
  const filter = auditFilter(parseQuery(c, AuditQuery), c.get('config').auditRetentionMs);
  return page(c, { ...filter, accountId: c.get('caller').accountId });
});

export const auditAdminRoutes = new Hono<AppEnv>().get('/', async function listAllAudit(c) {
  const query = parseQuery(c, AdminAuditQuery);
  const filter = auditFilter(query, c.get('config').auditRetentionMs);
  if (query.account_id !== undefined && !/^\d{1,15}$/.test(query.account_id)) bad('account_id: an account id');
  return page(c, { ...filter, ...(query.account_id !== undefined ? { accountId: Number(query.account_id) } : {}) });
});
