/**
 * Signed, expiring links to a task's files (`csv` and `download_urls`), served through the edge:
 * `{region's public base}/batch/_1000001/results/{task_id}/{file}?expires={unix seconds}&signature={hex}`.
 * The base is the public address the caller used for this region (carried in the edge's signed context),
 * so an ap-southeast task's links point at the ap-southeast address. The signature is an HMAC-SHA256 with
 * the link key (IRIS_LINK_SECRET, never the internal secret) over the account, task, file and expiry, so a
 * link works with nothing else (no access key), only for that task's file, and only until it expires.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '@iris/shared';

export const RESULTS_PATH = '/batch/_1000001/results';
/** The input file as uploaded. */
export const INPUT_FILE = 'urls.txt';

export function resultFileName(index: number): string {
  return `results-${String(index + 1).padStart(4, '0')}.jsonl`;
}

/** Only these names are ever served (no path separators, no dots beyond the extension). */
const SERVED_FILE = /^(urls\.txt|results-\d{4,}\.jsonl)$/;

export function isServedFile(name: string): boolean {
  return SERVED_FILE.test(name);
}

interface LinkTarget {
  accountId: number;
  taskId: string;
  file: string;
}

function sign(secret: string, target: LinkTarget, expires: number): string {
  return createHmac('sha256', secret).update(`batch-link\n${target.accountId}\n${target.taskId}\n${target.file}\n${expires}`).digest('hex');
}

export function signedLink(base: string, secret: string, target: LinkTarget, expiresAt: number): string {
  const expires = Math.floor(expiresAt / 1000);
  const query = new URLSearchParams({ expires: String(expires), signature: sign(secret, target, expires) });
  return `${base.replace(/\/+$/, '')}${RESULTS_PATH}/${encodeURIComponent(target.taskId)}/${encodeURIComponent(target.file)}?${query}`;
}

/** Throws 401 (Iris codes 1104 / 1105, batch shape) unless the link is genuine and unexpired. */
export function verifyLink(secret: string, target: LinkTarget, query: { expires?: string; signature?: string }, now = Date.now()): void {
  const expires = Number(query.expires);
  if (!query.expires || !/^\d{1,12}$/.test(query.expires) || !query.signature) {
    throw new ApiError('signatureInvalid', 'result links need their expires and signature parameters; take the link from task info');
  }
  const expected = Buffer.from(sign(secret, target, expires), 'hex');
  const given = /^[0-9a-f]{64}$/i.test(query.signature) ? Buffer.from(query.signature, 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new ApiError('signatureInvalid', 'the result link is not valid for this account and file');
  if (expires * 1000 < now) throw new ApiError('signatureExpired', 'the result link has expired; fetch task info again for fresh links');
}
