import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, apiErrorBody, isApiError, isDeclaredError, newResourceId } from '@iris/shared';

function requestIdOf(request: FastifyRequest): string {
  return request.ctx?.requestId ?? newResourceId();
}

export interface ErrorHandlingOptions {
  /** An error code the route's operation does not declare answers 500 instead of being logged and counted. */
  strictContract?: boolean;
}

/** One mapping from errors to the specification's shapes, chosen by the path's endpoint family. */
export function registerErrorHandling(app: FastifyInstance, options: ErrorHandlingOptions = {}): void {
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
    apiError = checkDeclared(app, request, apiError, options.strictContract === true);
    const elapsed = request.ctx ? (performance.now() - request.ctx.startedAt) / 1000 : 0;
    return reply.status(apiError.status).send(apiErrorBody(request.url, apiError, requestIdOf(request), elapsed));
  });
  app.setNotFoundHandler(function notFound(request, reply) {
    const err = new ApiError('notFound', `no such endpoint: ${request.method} ${request.url.split('?')[0]}`);
    return reply.status(404).send(apiErrorBody(request.url, err, requestIdOf(request)));
  });
}

/**
 * A refusal whose code the route's operation does not declare is a contract defect: clients of the operation
 * are not told to expect it. It is logged and counted; under `strict` (the test suites) it answers 500 so
 * that the test that met it fails.
 */
function checkDeclared(app: FastifyInstance, request: FastifyRequest, err: ApiError, strict: boolean): ApiError {
  const operation = request.routeOptions.config.operation;
  if (!operation || isDeclaredError(operation, err.status, err.code)) return err;
  const what = `${operation.id} answered ${err.status}/${err.code}, a code it does not declare`;
  request.log.error({ operation: operation.id, status: err.status, code: err.code }, 'undeclared error code');
  if (app.hasDecorator('metrics')) app.metrics.undeclaredErrors.inc({ operation: operation.id, code: `${err.status}/${err.code}` });
  return strict ? new ApiError('internal', `${what} (${err.message})`) : err;
}
