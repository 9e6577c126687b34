/**
 * Per-account limit on uploads in flight (multipart bodies and large bodies): an account sending more at
 * once than IRIS_ACCOUNT_UPLOADS is refused with 503 in its endpoint family's shape before its body is
 * read, so one account's upload flood cannot take every connection, temp folder and parser of a process.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, LIMITS } from '@iris/shared';
import { releaseWhenAnswered } from './when-answered.js';

declare module 'fastify' {
  interface FastifyRequest {
    irisUploadSlot?: string;
  }
}

function isUpload(request: FastifyRequest): boolean {
  const type = String(request.headers['content-type'] ?? '').toLowerCase();
  const length = Number(request.headers['content-length'] ?? 0);
  return type.startsWith('multipart/') || length > LIMITS.plainBodyBytes || request.headers['transfer-encoding'] !== undefined;
}

export function registerAccountUploadLimit(app: FastifyInstance, perAccount: number): void {
  const inFlight = new Map<string, number>();
  const release = (request: FastifyRequest) => {
    const account = request.irisUploadSlot;
    if (account === undefined) return;
    request.irisUploadSlot = undefined;
    const left = (inFlight.get(account) ?? 1) - 1;
    if (left > 0) inFlight.set(account, left);
    else inFlight.delete(account);
  };
  // After the edge-signature hook (registered before), so the account is known.
  app.addHook('onRequest', async function limitUploads(request) {
    if (!request.ctx || !isUpload(request)) return;
    const account = String(request.ctx.accountId);
    const current = inFlight.get(account) ?? 0;
    if (current >= perAccount) throw new ApiError('busy', `at most ${perAccount} uploads of one account at once; retry later`);
    inFlight.set(account, current + 1);
    request.irisUploadSlot = account;
  });
  releaseWhenAnswered(app, release);
}
