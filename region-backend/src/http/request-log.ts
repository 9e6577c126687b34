/**
 * Log lines carry the customer-visible `request_id` (the id the edge minted and the caller sees in every
 * answer) and the account, so one id finds a call at the edge and in the backend. They are read from the
 * edge's context header before its signature is checked: a forged header only labels the line that logs
 * its refusal.
 */
import type { IncomingMessage } from 'node:http';
import { LogController, type FastifyServerOptions } from 'fastify';
import { INTERNAL_HEADERS, newResourceId } from '@iris/shared';

const MAX_CONTEXT_CHARS = 8192;

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The request id of the edge's context, else a fresh one (calls that did not come through the edge). */
export function requestIdOf(req: IncomingMessage): string {
  const context = header(req, INTERNAL_HEADERS.context);
  if (context && context.length <= MAX_CONTEXT_CHARS) {
    try {
      const id = (JSON.parse(Buffer.from(context, 'base64url').toString('utf8')) as { requestId?: unknown }).requestId;
      if (typeof id === 'string' && /^[\w-]{1,64}$/.test(id)) return id;
    } catch {
      // not a context: fall through
    }
  }
  return newResourceId(16);
}

/** The account the edge resolved, for the log line (a number, or undefined). */
export function accountOf(req: IncomingMessage): number | undefined {
  const account = Number(header(req, INTERNAL_HEADERS.account));
  return Number.isSafeInteger(account) ? account : undefined;
}

/** Fastify options: the log id is the caller's request_id, and every line of a call names its account. */
export const requestLogOptions = {
  genReqId: requestIdOf,
  logController: new LogController({ requestIdLogLabel: 'request_id' }),
  childLoggerFactory: (logger, bindings, opts, rawReq) => logger.child({ ...bindings, account: accountOf(rawReq as IncomingMessage) }, opts),
} satisfies Partial<FastifyServerOptions>;
