import { ApiError } from '@iris/shared';

/** A 429/1112 that carries its `Retry-After` (set by the error handler). */
export class RetryLaterError extends ApiError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('rateLimited', message);
  }
}
