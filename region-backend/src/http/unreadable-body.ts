import type { FastifyRequest } from 'fastify';
import { ApiError, errorFamilyForPath } from '@iris/shared';

/**
 * A request body that cannot be read (malformed, too many parts, cut off, read differently from the edge), in
 * the code the path's family has for it: 400/5001 (invalid data) on the resource paths, 400/400 on analysis
 * (the colour and fashion table's bad request, which every analysis operation declares), and Iris's 400/1111
 * on batch paths, whose table has no code for it.
 */
export function unreadableBody(request: FastifyRequest, message: string): ApiError {
  switch (errorFamilyForPath(request.url)) {
    case 'resource':
      return new ApiError('invalidData', message);
    case 'analysis':
      return new ApiError('analysisBadRequest', message);
    case 'batch':
      return new ApiError('badRequest', message);
  }
}
