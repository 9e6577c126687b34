/**
 * The backend's half of "one reading of a request" (docs/edge.md): the edge signs the body fields it read
 * and checked (`fields`) and the ready-made services the account may run here (`services`). A request the
 * backend reads differently is refused, and the services are checked again, so no difference between the
 * edge's and the backend's parsers can skip a check.
 */
import type { FastifyRequest } from 'fastify';
import { ApiError, serviceById, type ErrorKey } from '@iris/shared';
import { unreadableBody } from './unreadable-body.js';

/** Refuses the request when a field the edge checked reads differently here (absent reads as ''). */
export function requireEdgeReading(request: FastifyRequest, fields: Record<string, string | undefined>): void {
  const checked = request.ctx?.forward?.fields;
  if (!checked) return;
  for (const [name, value] of Object.entries(checked)) {
    if ((fields[name]?.trim() ?? '') !== value) {
      request.log.warn({ field: name }, 'edge and backend read the body differently');
      throw unreadableBody(request, `the request body is ambiguous: field ${name} reads differently`);
    }
  }
}

/**
 * A ready-made service must be in the signed list of services the account may run in this region: not in
 * this region's catalogue → `unknown`; else not granted → `notGranted` (403/2005 on analysis calls). No list
 * (not an edge call) → refused.
 */
export function requireGrantedService(request: FastifyRequest, serviceId: string, region: string, unknown: ErrorKey, notGranted: ErrorKey = 'serviceNotGranted'): void {
  if (request.ctx.forward.services?.includes(serviceId)) return;
  const entry = serviceById(serviceId);
  if (!entry || !entry.regions.includes(region as never)) throw new ApiError(unknown, `service ${serviceId} does not exist`);
  throw new ApiError(notGranted, `the account is not authorized for service ${serviceId}`);
}
