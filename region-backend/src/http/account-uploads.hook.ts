/**
 * Limits on uploads in flight (multipart bodies and large bodies): an account sending more at once than
 * IRIS_ACCOUNT_UPLOADS, or any call past IRIS_PROCESS_UPLOADS of the whole process, is refused with 503 in
 * its endpoint family's shape before its body is read, so one account's upload flood (or many accounts'
 * at once) cannot take every connection, temp folder, parser and megabyte of temp disk of a process.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, LIMITS } from '@iris/shared';
import { releaseWhenAnswered } from './when-answered.js';

declare module 'fastify' {
  interface FastifyRequest {
    irisUploadSlot?: string;
  }
  interface FastifyInstance {
    uploadSlots: UploadSlots;
  }
}

export interface UploadSlots {
  /** Uploads in flight: one account's, or the whole process's (tests, metrics). */
  inFlight(account?: string): number;
}

function isUpload(request: FastifyRequest): boolean {
  const type = String(request.headers['content-type'] ?? '').toLowerCase();
  const length = Number(request.headers['content-length'] ?? 0);
  return type.startsWith('multipart/') || length > LIMITS.plainBodyBytes || request.headers['transfer-encoding'] !== undefined;
}

export function registerAccountUploadLimit(app: FastifyInstance, perAccount: number, perProcess = Number.POSITIVE_INFINITY): void {
  const inFlight = new Map<string, number>();
  let total = 0;
  const release = (request: FastifyRequest) => {
    const account = request.irisUploadSlot;
    if (account === undefined) return;
    request.irisUploadSlot = undefined;
    total--;
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
    if (total >= perProcess) throw new ApiError('busy', `at most ${perProcess} uploads at once on this server; retry later`);
    inFlight.set(account, current + 1);
    total++;
    request.irisUploadSlot = account;
  });
  releaseWhenAnswered(app, release);
  app.decorate('uploadSlots', { inFlight: (account?: string) => (account === undefined ? total : (inFlight.get(account) ?? 0)) });
}
