import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, apiErrorBody, isApiError, newResourceId } from '@iris/shared';

function requestIdOf(request: FastifyRequest): string {
  return request.ctx?.requestId ?? newResourceId();
}

/** One mapping from errors to the specification's shapes, chosen by the path's endpoint family. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(function mapError(error: FastifyError | ApiError, request, reply) {
    let apiError: ApiError;
    if (isApiError(error)) {
      apiError = error;
    } else if ((error as FastifyError).statusCode === 413) {
      apiError = new ApiError('payloadTooLarge', 'request body too large');
    } else if ((error as FastifyError).validation || ((error as FastifyError).statusCode ?? 500) < 500) {
      apiError = new ApiError('badRequest', error.message);
    } else {
      request.log.error({ err: error }, 'unhandled error');
      apiError = new ApiError('internal', 'internal error');
    }
    const elapsed = request.ctx ? (performance.now() - request.ctx.startedAt) / 1000 : 0;
    return reply.status(apiError.status).send(apiErrorBody(request.url, apiError, requestIdOf(request), elapsed));
  });
  app.setNotFoundHandler(function notFound(request, reply) {
    const err = new ApiError('notFound', `no such endpoint: ${request.method} ${request.url.split('?')[0]}`);
    return reply.status(404).send(apiErrorBody(request.url, err, requestIdOf(request)));
  });
}
