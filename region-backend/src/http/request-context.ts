import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServerTimings } from './server-timing.js';
import { INTERNAL_HEADERS, newResourceId, withDefaultQuotas, type ForwardContext, type Lang, type Quotas, type RegistryChanges } from '@iris/shared';

/** Who is calling and how, as established by the edge (see internal-auth.hook.ts). */
export interface RequestContext {
  accountId: number;
  requestId: string;
  lang: Lang;
  resourceId: string | undefined;
  /** The account's quotas (defaults for any the edge did not send). */
  quotas: Quotas;
  startedAt: number;
  /** Time spent per stage, answered as Server-Timing. */
  timings: ServerTimings;
  /** The whole signed context (checked fields, granted services, public base, body binding). */
  forward: ForwardContext;
}

declare module 'fastify' {
  interface FastifyRequest {
    ctx: RequestContext;
  }
}

export function contextFrom(accountId: number, forward: ForwardContext): RequestContext {
  return {
    accountId,
    requestId: forward.requestId,
    lang: forward.lang === 'zh' ? 'zh' : 'en',
    resourceId: forward.resourceId,
    quotas: withDefaultQuotas(forward.quotas),
    startedAt: performance.now(),
    timings: new ServerTimings(),
    forward,
  };
}

/** The id the edge minted for this create call (backends never invent ids of registry resources). */
export function mintedId(request: FastifyRequest): string {
  const id = request.ctx.resourceId;
  if (!id) throw new Error('create call without an edge-minted resource id');
  return id;
}

/** Reports registry changes to the edge with the response. */
export function reportRegistry(reply: FastifyReply, changes: RegistryChanges): void {
  reply.header(INTERNAL_HEADERS.registry, JSON.stringify(changes));
}

/** Ids for rows that are not registry resources (internal only). */
export const internalId = (): string => newResourceId();
