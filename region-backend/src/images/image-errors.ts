/**
 * The two error types of the images module. Messages are safe to show to API clients: they name the URL
 * the client gave (or a redirect target it led to) but never a resolved internal address or a low-level
 * socket message; the original error stays in `cause` for logs.
 */
export type ImageFetchErrorKind =
  | 'invalid-url'
  | 'forbidden-address'
  | 'http-status'
  | 'too-large'
  | 'timeout'
  | 'network'
  | 'not-an-image'
  | 'too-many-redirects';

export class ImageFetchError extends Error {
  override readonly name = 'ImageFetchError';
  constructor(
    readonly kind: ImageFetchErrorKind,
    message: string,
    /** HTTP status of the final response, for `http-status`. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export type ImageDecodeErrorKind = 'undecodable' | 'too-many-pixels' | 'too-small' | 'bad-crop';

export class ImageDecodeError extends Error {
  override readonly name = 'ImageDecodeError';
  constructor(
    readonly kind: ImageDecodeErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** `image-<kind>`: how the kind crosses a worker-thread boundary (see inference/image-decoder-pool.ts). */
  get code(): string {
    return `image-${this.kind}`;
  }
}

export const IMAGE_DECODE_ERROR_KINDS: readonly ImageDecodeErrorKind[] = ['undecodable', 'too-many-pixels', 'too-small', 'bad-crop'];
